export { evaluateFlag } from './evaluate-flag';
export { bucketFor } from './bucketing';
