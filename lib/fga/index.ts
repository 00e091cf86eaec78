// The FGA engine's entry points (see types.ts for the contract).
export * from './types.ts';
export { parseModelDsl, validateModel, modelToDsl, compileModel, relationsOf, typeNames, MODEL_LIMITS } from './model.ts';
export type { CompiledModel, CompiledRelation, CompiledType, ReverseEdge } from './model.ts';
export { parseTupleKey, formatTuple, checkTuple, tupleProblem, parseObject, parseUser, formatUser, describeKey } from './tuples.ts';
export { batchCheck, check } from './check.ts';
export { expand, type ExpandRequest } from './expand.ts';
export { listObjects, type ListObjectsOptions } from './list-objects.ts';
export { listUsers } from './list-users.ts';
