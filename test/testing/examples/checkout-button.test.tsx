// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { FlagsProvider, useFlag } from 'flagplane/react';
import { createTestClient } from 'flagplane/testing';

// The component under test.
function CheckoutButton() {
  const newCheckout = useFlag('new-checkout', false);
  return <button>{newCheckout ? 'Try the new checkout' : 'Checkout'}</button>;
}

afterEach(cleanup);

it('re-renders when the flag changes', () => {
  const client = createTestClient({ flags: { 'new-checkout': false } });
  render(
    <FlagsProvider client={client}>
      <CheckoutButton />
    </FlagsProvider>,
  );
  expect(screen.getByRole('button').textContent).toBe('Checkout');

  act(() => client.set('new-checkout', true));
  expect(screen.getByRole('button').textContent).toBe('Try the new checkout');
});
