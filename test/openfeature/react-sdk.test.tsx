// @vitest-environment happy-dom
// @openfeature/react-sdk's hooks on the web provider, against the reference server over real HTTP.
import { OpenFeature, OpenFeatureProvider, useBooleanFlagValue, useNumberFlagValue, useStringFlagValue } from '@openfeature/react-sdk';
import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FlagplaneWebProvider } from '../../openfeature/index';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { providerSnapshot } from './fixtures';

let server: ReferenceServer;
beforeEach(async () => {
  server = await startReferenceServer({ port: 0 });
  server.publish('production', providerSnapshot());
});
afterEach(async () => {
  await OpenFeature.close();
  await server.close();
});

const renders = { theme: 0, darkMode: 0, pageSize: 0 };
function Theme() {
  renders.theme++;
  return <p data-testid="theme">{useStringFlagValue('theme', 'dark')}</p>;
}
function DarkMode() {
  renders.darkMode++;
  return <p data-testid="dark-mode">{String(useBooleanFlagValue('dark-mode', false))}</p>;
}
function PageSize() {
  renders.pageSize++;
  return <p data-testid="page-size">{useNumberFlagValue('page-size', 10)}</p>;
}

describe('@openfeature/react-sdk on FlagplaneWebProvider', () => {
  it('useBooleanFlagValue and useStringFlagValue re-render after a publish; a reader of an unchanged flag does not', async () => {
    const provider = new FlagplaneWebProvider({
      sdkKey: await server.createKey('production', 'client'),
      baseUrl: server.baseUrl,
      pollInterval: 0,
      events: false,
      persist: false,
      syncTabs: false,
    });
    await OpenFeature.setContext({ targetingKey: 'user-1', plan: 'free' });
    await OpenFeature.setProviderAndWait(provider);
    render(
      <OpenFeatureProvider>
        <Theme />
        <DarkMode />
        <PageSize />
      </OpenFeatureProvider>,
    );
    expect(screen.getByTestId('theme').textContent).toBe('light');
    expect(screen.getByTestId('dark-mode').textContent).toBe('false');
    expect(screen.getByTestId('page-size').textContent).toBe('20');
    const before = { ...renders };

    server.publish('production', providerSnapshot('sepia', true));
    // The SDK runs its event handlers asynchronously: act() waits for the re-render they cause.
    await act(async () => {
      await provider.client.refresh();
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(screen.getByTestId('theme').textContent).toBe('sepia');
    expect(screen.getByTestId('dark-mode').textContent).toBe('true');
    expect(renders.theme).toBeGreaterThan(before.theme);
    expect(renders.darkMode).toBeGreaterThan(before.darkMode);
    // Its flag did not change (flagsChanged names theme and dark-mode only).
    expect(renders.pageSize).toBe(before.pageSize);
  });
});
