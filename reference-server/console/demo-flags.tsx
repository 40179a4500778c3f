/** What the demo client serves: getDetails per flag, and one memoised useFlag reader per flag. */
import { memo, useRef } from 'react';
import { useFlag, useFlagDetails, useFlags } from '../../react/index';
import { formatValue } from './flag-format';

export function DetailsTable() {
  const keys = Object.keys(useFlags()).sort();
  if (!keys.length) return <p className="muted">No flags yet (a client key sees client-side flags only).</p>;
  return (
    <table className="table" data-testid="demo-values">
      <thead>
        <tr>
          <th>flag</th>
          <th>value</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <DetailsRow key={key} flagKey={key} />
        ))}
      </tbody>
    </table>
  );
}

function DetailsRow({ flagKey }: { flagKey: string }) {
  const details = useFlagDetails(flagKey);
  return (
    <tr>
      <td>{flagKey}</td>
      <td>
        <code data-testid={`demo-value-${flagKey}`}>{formatValue(details.value, 48)}</code>
      </td>
      <td data-testid={`demo-reason-${flagKey}`}>
        {details.reason}
        {details.ruleId ? ` (${details.ruleId})` : ''}
        {details.errorCode ? ` ${details.errorCode}` : ''}
      </td>
    </tr>
  );
}

export function LiveFlags() {
  const keys = Object.keys(useFlags()).sort();
  return (
    <div className="live-flags" data-testid="demo-react">
      {keys.map((key) => (
        <LiveFlag key={key} flagKey={key} />
      ))}
    </div>
  );
}

/** Memoised: the list above re-renders on any change, this box only when `useFlag` says so. */
const LiveFlag = memo(function LiveFlag({ flagKey }: { flagKey: string }) {
  const value = useFlag(flagKey);
  const renders = useRef(0);
  renders.current += 1;
  return (
    <div className={`live-flag ${value === true ? 'live-true' : value === false ? 'live-false' : ''}`} data-testid={`react-flag-${flagKey}`}>
      <span className="live-key">{flagKey}</span>
      <code data-testid={`react-value-${flagKey}`}>{formatValue(value, 32)}</code>
      <span className="renders" title="renders of this component">
        renders <span data-testid={`react-renders-${flagKey}`}>{renders.current}</span>
      </span>
    </div>
  );
});
