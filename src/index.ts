export { SUPPORTED_SCHEMA_VERSION } from './snapshot-types';
export type {
  FlagSnapshot,
  Flag,
  Rule,
  Condition,
  AttributeCondition,
  AttributeOperator,
  SegmentCondition,
  Serve,
  WeightedVariation,
  JsonValue,
} from './snapshot-types';
