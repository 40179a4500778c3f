/** The one-click controls of a flag: its off variation, its fallthrough, rollout weights. */
import { useState } from 'react';
import type { JsonValue, WeightedVariation } from '../../src/index';
import { AdminError } from './api';
import { evenWeights, formatValue, percent } from './flag-format';
import { ErrorNote } from './ui';

const options = (variations: readonly JsonValue[]) =>
  variations.map((value, index) => (
    <option key={index} value={index}>
      {index}: {formatValue(value, 40)}
    </option>
  ));

export function OffVariationSelect(props: {
  flagKey: string;
  variations: readonly JsonValue[];
  value: unknown;
  disabled: boolean;
  onChange(index: number): void;
}) {
  const { flagKey, variations, value, disabled, onChange } = props;
  return (
    <label className="control">
      <span className="label">off variation</span>
      <select data-testid={`off-variation-${flagKey}`} value={String(value)} disabled={disabled} onChange={(event) => onChange(Number(event.target.value))}>
        {typeof value === 'number' && value >= 0 && value < variations.length ? null : <option value={String(value)}>{formatValue(value)} (invalid)</option>}
        {options(variations)}
      </select>
    </label>
  );
}

type Fallthrough = { variation: number } | { rollout: WeightedVariation[] } | undefined;

export function FallthroughControl(props: {
  flagKey: string;
  variations: readonly JsonValue[];
  fallthrough: Fallthrough;
  disabled: boolean;
  error: AdminError | null;
  onVariation(index: number): void;
  onRollout(rollout: WeightedVariation[]): Promise<AdminError | null>;
}) {
  const { flagKey, variations, fallthrough, disabled, error, onVariation, onRollout } = props;
  const rollout = fallthrough && 'rollout' in fallthrough && Array.isArray(fallthrough.rollout) ? fallthrough.rollout : null;
  // Choosing "rollout" opens the weights; nothing is published until they are applied.
  const [wantsRollout, setWantsRollout] = useState(false);
  const showRollout = rollout !== null || wantsRollout;
  const selected = showRollout ? 'rollout' : fallthrough && 'variation' in fallthrough ? String(fallthrough.variation) : '';
  return (
    <div className="control">
      <label>
        <span className="label">fallthrough</span>
        <select
          data-testid={`fallthrough-${flagKey}`}
          value={selected}
          disabled={disabled}
          onChange={(event) => {
            if (event.target.value === 'rollout') return setWantsRollout(true);
            setWantsRollout(false);
            onVariation(Number(event.target.value));
          }}
        >
          {selected === '' ? <option value="">(malformed)</option> : null}
          {options(variations)}
          <option value="rollout">percentage rollout…</option>
        </select>
      </label>
      <ErrorNote error={error} testId={`fallthrough-error-${flagKey}`} />
      {showRollout ? (
        <RolloutEditor
          // A new rollout at the server starts a new draft; a refused one keeps the draft.
          key={JSON.stringify(rollout)}
          flagKey={flagKey}
          variations={variations}
          rollout={rollout}
          onApply={onRollout}
          onCancel={rollout ? undefined : () => setWantsRollout(false)}
        />
      ) : null}
    </div>
  );
}

function initialPercents(variations: readonly JsonValue[], rollout: WeightedVariation[] | null): string[] {
  const weights = rollout ? variations.map(() => 0) : evenWeights(variations.length);
  for (const slice of rollout ?? []) {
    if (typeof slice?.variation === 'number' && slice.variation in weights) weights[slice.variation]! += Number(slice.weight) || 0;
  }
  return weights.map((weight) => String(weight / 1000));
}

/** One number input per variation, in percent; the server checks that they sum to 100%. */
function RolloutEditor(props: {
  flagKey: string;
  variations: readonly JsonValue[];
  rollout: WeightedVariation[] | null;
  onApply(rollout: WeightedVariation[]): Promise<AdminError | null>;
  onCancel: (() => void) | undefined;
}) {
  const { flagKey, variations, rollout, onApply, onCancel } = props;
  const [percents, setPercents] = useState(() => initialPercents(variations, rollout));
  const [error, setError] = useState<AdminError | null>(null);
  const [pending, setPending] = useState(false);
  const weights = percents.map((text) => Math.round(Number(text) * 1000));
  const sum = weights.reduce((total, weight) => total + (Number.isFinite(weight) ? weight : 0), 0);

  const apply = async () => {
    if (percents.some((text) => text.trim() === '' || !Number.isFinite(Number(text)))) {
      setError(new AdminError(0, 'input', 'every weight must be a number (percent)'));
      return;
    }
    // Variations at 0% are left out; if every one is 0 the server says why that is wrong.
    const slices = weights.map((weight, variation) => ({ variation, weight })).filter((slice) => slice.weight !== 0);
    setPending(true);
    setError(await onApply(slices.length ? slices : weights.map((weight, variation) => ({ variation, weight }))));
    setPending(false);
  };

  return (
    <div className="rollout" data-testid={`rollout-${flagKey}`}>
      {variations.map((value, index) => (
        <label key={index} className="weight">
          <input
            type="number"
            min={0}
            max={100}
            step={0.001}
            data-testid={`rollout-weight-${flagKey}-${index}`}
            value={percents[index] ?? ''}
            onChange={(event) => setPercents((previous) => previous.map((text, i) => (i === index ? event.target.value : text)))}
          />
          <span>% {formatValue(value, 24)}</span>
        </label>
      ))}
      <div className="row">
        <span className={sum === 100_000 ? 'sum' : 'sum sum-off'} data-testid={`rollout-sum-${flagKey}`}>
          total {percent(sum)}
        </span>
        <button type="button" className="primary" data-testid={`rollout-apply-${flagKey}`} disabled={pending} onClick={() => void apply()}>
          Apply weights
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      <ErrorNote error={error} testId={`rollout-error-${flagKey}`} />
    </div>
  );
}
