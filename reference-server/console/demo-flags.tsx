/**
 * What the demo client serves: getDetails per flag, and one memoised useFlag reader per flag —
 * for the flags whose key matches the flags pane's search, at most DEMO_FLAG_LIMIT of them.
 */
import { memo, useRef } from 'react';
import { useFlag, useFlagDetails, useFlags } from '../../react/index';
import { formatValue } from './flag-format';
import { countLine, keyMatches } from './flag-search';

/** Flags the demo shows at most: each one shown is evaluated (and reported) by the real client. */
export const DEMO_FLAG_LIMIT = 40;

/** The client's flag keys matching the search, sorted, at most DEMO_FLAG_LIMIT, and how many matched. */
function useShownKeys(search: string): { keys: string[]; matched: number; total: number } {
  const all = Object.keys(useFlags());
  const matched = all.filter((key) => keyMatches(key, search)).sort();
  return { keys: matched.slice(0, DEMO_FLAG_LIMIT), matched: matched.length, total: all.length };
}

/** `40 of 9,998 flags (the search narrows them)` when some are left out. */
function ShownCount({ keys, matched, total, testId }: { keys: string[]; matched: number; total: number; testId: string }) {
  if (keys.length === total) return null;
  return (
    <p className="muted small" data-testid={testId}>
      {countLine(keys.length, total)}
      {keys.length < matched ? ': the flags pane\'s search narrows them' : ''}
    </p>
  );
}

export function DetailsTable({ search }: { search: string }) {
  const shown = useShownKeys(search);
  const { keys } = shown;
  if (!shown.total) return <p className="muted">No flags yet (a client key sees client-side flags only).</p>;
  return (
    <>
      <ShownCount {...shown} testId="demo-values-count" />
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
    </>
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

export function LiveFlags({ search }: { search: string }) {
  const { keys } = useShownKeys(search);
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
