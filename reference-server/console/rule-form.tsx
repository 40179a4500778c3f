/** A form that adds one rule of one attribute condition; `is` offers true and false. */
import { useState } from 'react';
import type { AttributeCondition, AttributeOperator, JsonValue, Rule } from '../../src/index';
import { AdminError } from './api';
import { formatValue } from './flag-format';
import { EditorButtons, ErrorNote } from './ui';
import { useSubmit } from './use-action';

const OPERATORS: readonly AttributeOperator[] = [
  'in', 'contains', 'startsWith', 'endsWith', 'lt', 'lte', 'gt', 'gte',
  'semverEq', 'semverLt', 'semverGt', 'before', 'after', 'exists', 'is',
];

/** The condition's `values` from the form: none for exists, one boolean for is, else a JSON array. */
function valuesFor(op: AttributeOperator, text: string, truth: boolean): AttributeCondition['values'] {
  if (op === 'exists') return undefined;
  if (op === 'is') return [truth];
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new AdminError(0, 'json', `values are not JSON: ${(error as Error).message}`);
  }
  // The server says what is wrong with the entries; the form only needs a list.
  return (Array.isArray(values) ? values : [values]) as AttributeCondition['values'];
}

export function RuleForm(props: { flagKey: string; variations: readonly JsonValue[]; ruleCount: number; onAdd(rule: Rule): Promise<AdminError | null>; onCancel(): void }) {
  const { flagKey, variations, ruleCount, onAdd, onCancel } = props;
  const [id, setId] = useState(`rule-${ruleCount + 1}`);
  const [attribute, setAttribute] = useState('');
  const [op, setOp] = useState<AttributeOperator>('in');
  const [text, setText] = useState('[""]');
  const [truth, setTruth] = useState(true);
  const [negate, setNegate] = useState(false);
  const [variation, setVariation] = useState(0);
  const { error, pending, submit } = useSubmit(onAdd);
  const rule = (): Rule => {
    const values = valuesFor(op, text, truth);
    const condition: AttributeCondition = { kind: 'attribute', attribute, op, ...(values ? { values } : {}), ...(negate ? { negate } : {}) };
    return { id, conditions: [condition], serve: { variation } };
  };

  const testId = `rule-form-${flagKey}`;
  return (
    <div className="rule-form" data-testid={testId}>
      <div className="row">
        <input aria-label="rule id" data-testid={`${testId}-id`} value={id} onChange={(event) => setId(event.target.value)} />
        <span>if</span>
        <input aria-label="attribute" placeholder="attribute" data-testid={`${testId}-attribute`} value={attribute} onChange={(event) => setAttribute(event.target.value)} />
        <label>
          <input type="checkbox" data-testid={`${testId}-negate`} checked={negate} onChange={(event) => setNegate(event.target.checked)} /> not
        </label>
        <select aria-label="operator" data-testid={`${testId}-op`} value={op} onChange={(event) => setOp(event.target.value as AttributeOperator)}>
          {OPERATORS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {op === 'is' ? (
          <select aria-label="value" data-testid={`${testId}-truth`} value={String(truth)} onChange={(event) => setTruth(event.target.value === 'true')}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : op === 'exists' ? null : (
          <input aria-label="values (JSON array)" data-testid={`${testId}-values`} value={text} onChange={(event) => setText(event.target.value)} />
        )}
        <span>→</span>
        <select aria-label="serve" data-testid={`${testId}-serve`} value={variation} onChange={(event) => setVariation(Number(event.target.value))}>
          {variations.map((value, index) => (
            <option key={index} value={index}>
              {index}: {formatValue(value, 30)}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={error} testId={`${testId}-error`} />
      <EditorButtons testId={testId} pending={pending} saveLabel="Add rule" onSave={() => void submit(rule)} onCancel={onCancel} />
    </div>
  );
}
