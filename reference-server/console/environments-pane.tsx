/** Every environment: its version, the versions kept, its live stream clients. Click to look at one. */
import type { EnvironmentInfo } from './api';
import { Badge, Pane } from './ui';

/** `1–12` for a run without gaps, else the last few: `…, 7, 9, 12`. */
export function describeVersions(versions: readonly number[]): string {
  if (versions.length === 0) return 'none';
  const first = versions[0]!;
  const last = versions[versions.length - 1]!;
  if (versions.length === 1) return String(first);
  if (last - first === versions.length - 1) return `${first}–${last}`;
  return `${versions.length > 6 ? '…, ' : ''}${versions.slice(-6).join(', ')}`;
}

export function EnvironmentsPane(props: { environments: EnvironmentInfo[]; selected: string; onSelect(id: string): void }) {
  const { environments, selected, onSelect } = props;
  return (
    <Pane title="Environments" testId="environments-pane">
      <table className="table">
        <thead>
          <tr>
            <th>environment</th>
            <th>version</th>
            <th>published</th>
            <th>streams</th>
            <th>flags</th>
          </tr>
        </thead>
        <tbody>
          {environments.map((environment) => (
            <tr key={environment.id} className={environment.id === selected ? 'selected' : undefined}>
              <td>
                <button type="button" className="link" data-testid={`env-${environment.id}`} aria-pressed={environment.id === selected} onClick={() => onSelect(environment.id)}>
                  {environment.id}
                </button>{' '}
                <Badge tone={environment.kind === 'production' ? 'warn' : 'plain'}>{environment.kind}</Badge>
              </td>
              <td data-testid={`version-${environment.id}`}>{environment.version}</td>
              <td data-testid={`versions-${environment.id}`} title={environment.versions.join(', ')}>
                {describeVersions(environment.versions)}
              </td>
              <td data-testid={`streams-${environment.id}`}>{environment.streams}</td>
              <td>{Object.keys(environment.snapshot.flags ?? {}).length}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Pane>
  );
}
