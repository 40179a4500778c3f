export { runTypes, type TypesIo } from './run-types';
export { typesOfSnapshot } from './types-of-snapshot';
