/** A flag's metadata as a line of `name: value` entries. */
import { isRecord } from '../../src/shared/guards';
import { formatValue } from './flag-format';

export function MetadataLine({ flagKey, metadata }: { flagKey: string; metadata: unknown }) {
  if (metadata === undefined) return null;
  // A snapshot published whole is checked only at its envelope: show what is there.
  const entries = isRecord(metadata) ? Object.entries(metadata) : [];
  return (
    <p className="metadata" data-testid={`metadata-${flagKey}`}>
      <span className="label">metadata</span>
      {isRecord(metadata) ? null : <code>{formatValue(metadata, 60)} (malformed)</code>}
      {entries.map(([name, value]) => (
        <span key={name} className="metadata-entry">
          {name}: <code>{formatValue(value, 40)}</code>
        </span>
      ))}
      {isRecord(metadata) && entries.length === 0 ? <span className="muted">none</span> : null}
    </p>
  );
}
