// Authorization models: DSL ⇄ JSON (OpenFGA's syntax transformer), validation (the transformer's rules, then what it
// leaves out: the schema version, the conditions' CEL, size limits) and compilation into what queries walk.
import type * as SyntaxTransformer from '@openfga/syntax-transformer';
import { compileCondition, type CompiledCondition } from './conditions.ts';
import { FgaError, type AuthorizationModel, type RelationReference, type Userset } from './types.ts';

/**
 * Model limits (OpenFGA documents none of its own besides the request size; these keep validation under 50 ms), and
 * how long a DSL parse may take (./dsl-parser.ts runs it on a worker thread).
 */
export const MODEL_LIMITS = { types: 200, relationsPerType: 100, conditions: 100, modelBytes: 256 * 1024, dslParseMs: 2000 };
// The syntax transformer (an ANTLR parser: about 2 MB of heap) is loaded by the first model written or rendered,
// and kept: the engine itself works on the stored JSON form and never needs it.
let loaded: Promise<typeof SyntaxTransformer> | undefined;
const syntaxTransformer = () => (loaded ??= import('@openfga/syntax-transformer'));

export interface CompiledRelation {
  type: string;
  name: string;
  rewrite: Userset;
  /** The directly related user types (`user`, `user:*`, `group#member`, each maybe `with` a condition). */
  directTypes: RelationReference[];
  /** Whether some tuple-to-userset of the type reads this relation as its tupleset (its users must be objects). */
  tuplesetOf: boolean;
  /** `type#relation` */
  key: string;
}

export interface CompiledType {
  name: string;
  relations: Map<string, CompiledRelation>;
}

/**
 * An edge of the reverse graph list-objects walks: from a subject (an object `user`, a wildcard `user:*` or a
 * userset node `group#member`) to a relation it grants. `unsure` when the edge passes an intersection or an
 * exclusion: the objects it reaches are candidates for `check` to confirm.
 */
export type ReverseEdge =
  | { kind: 'direct'; objectType: string; relation: string; unsure: boolean }
  | { kind: 'computed'; objectType: string; relation: string; unsure: boolean }
  | { kind: 'ttu'; objectType: string; relation: string; tupleset: string; unsure: boolean };

export interface CompiledModel {
  id: string;
  model: AuthorizationModel;
  types: Map<string, CompiledType>;
  conditions: Map<string, CompiledCondition>;
  /** Reverse graph: subject key → the relations it grants. */
  reverse: Map<string, ReverseEdge[]>;
  /**
   * The relations (`type#relation`) a subject can possibly hold, by its key: `user` (an object of that type),
   * `user:*` (the wildcard subject), `group#member` (a userset subject). A check outside them is false without a
   * look-up. Computed on first use and kept with the compiled model.
   */
  reachableFrom(key: string): Set<string>;
}

/** The nodes the reverse graph reaches from a subject key (an object also matches its type's wildcard tuples). */
function reachFrom(reverse: Map<string, ReverseEdge[]>, key: string): Set<string> {
  const nodes = new Set<string>();
  const queue = [key];
  if (key.includes('#')) nodes.add(key);
  else if (!key.endsWith(':*')) queue.push(`${key}:*`);
  while (queue.length > 0) {
    for (const edge of reverse.get(queue.pop()!) ?? []) {
      const node = `${edge.objectType}#${edge.relation}`;
      if (nodes.has(node)) continue;
      nodes.add(node);
      queue.push(node);
    }
  }
  return nodes;
}

const positionOf = (line: number | undefined, column: number | undefined) => (line === undefined ? undefined : { line: line + 1, column: (column ?? 0) + 1 });

interface TransformerError {
  msg?: string;
  message?: string;
  line?: { start: number };
  column?: { start: number };
  metadata?: { type?: string; relation?: string; condition?: string; symbol?: string; errorType?: string };
}

function fromTransformer(error: unknown, dslForm: 'dsl' | 'json'): FgaError {
  const errors = (error as { errors?: TransformerError[] }).errors;
  const first = errors?.[0] ?? (error as TransformerError);
  const where = [first.metadata?.type && `type '${first.metadata.type}'`, first.metadata?.relation && `relation '${first.metadata.relation}'`]
    .filter(Boolean)
    .join(', ');
  const position = positionOf(first.line?.start, first.column?.start);
  const at = position ? ` at line ${position.line}, column ${position.column}${dslForm === 'json' ? " of the model's DSL form" : ''}` : '';
  const more = errors && errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new FgaError('invalid_authorization_model', `${first.msg ?? first.message ?? String(error)}${where ? ` (${where})` : ''}${at}${more}`, position);
}

/** The position in `dsl` of an offset in condition `name`'s expression, 1-based. */
function positionInDsl(dsl: string, name: string, expression: string, line: number, column: number) {
  const header = new RegExp(`(^|\\n)\\s*condition\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`).exec(dsl);
  if (!header) return undefined;
  const brace = dsl.indexOf('{', header.index);
  const firstLine = expression.split('\n')[0]!.trim();
  const start = brace < 0 ? -1 : dsl.indexOf(firstLine, brace);
  if (start < 0) return undefined;
  const before = dsl.slice(0, start).split('\n');
  const startLine = before.length;
  const startColumn = before.at(-1)!.length + 1;
  const leading = expression.length - expression.trimStart().length;
  if (line === 1) return { line: startLine, column: startColumn + Math.max(0, column - 1 - leading) };
  return { line: startLine + line - 1, column };
}

function checkLimits(model: AuthorizationModel) {
  const fail = (message: string) => {
    throw new FgaError('invalid_authorization_model', message);
  };
  if (typeof model !== 'object' || model === null || !Array.isArray(model.type_definitions)) fail('The model must have type_definitions.');
  if (model.type_definitions.length > MODEL_LIMITS.types) fail(`A model has at most ${MODEL_LIMITS.types} types.`);
  for (const type of model.type_definitions) {
    const count = Object.keys(type.relations ?? {}).length;
    if (count > MODEL_LIMITS.relationsPerType) fail(`Type '${type.type}' has ${count} relations; a type has at most ${MODEL_LIMITS.relationsPerType}.`);
  }
  if (Object.keys(model.conditions ?? {}).length > MODEL_LIMITS.conditions) fail(`A model has at most ${MODEL_LIMITS.conditions} conditions.`);
  if (JSON.stringify(model).length > MODEL_LIMITS.modelBytes) fail(`A model is at most ${MODEL_LIMITS.modelBytes / 1024} KiB (as JSON).`);
}

/** Compiles every condition; throws the first that does not compile, positioned in `dsl`. */
function checkConditions(model: AuthorizationModel, dsl: string, dslForm: 'dsl' | 'json'): Map<string, CompiledCondition> {
  const compiled = new Map<string, CompiledCondition>();
  for (const [key, definition] of Object.entries(model.conditions ?? {})) {
    const result = compileCondition(definition);
    if (!result.ok) {
      const position = positionInDsl(dsl, definition.name ?? key, definition.expression, result.error.line, result.error.column);
      const at = position ? ` at line ${position.line}, column ${position.column}${dslForm === 'json' ? " of the model's DSL form" : ''}` : '';
      throw new FgaError('invalid_authorization_model', `Condition '${key}'${at}: ${result.error.message}`, position);
    }
    compiled.set(key, result.condition);
  }
  return compiled;
}

async function validate(model: AuthorizationModel, dsl: string | undefined): Promise<Map<string, CompiledCondition>> {
  checkLimits(model);
  const { transformer, validator } = await syntaxTransformer();
  let rendered: string;
  try {
    rendered = dsl ?? transformer.transformJSONToDSL(model as Parameters<typeof transformer.transformJSONToDSL>[0]);
  } catch (error) {
    throw new FgaError('invalid_authorization_model', `The model cannot be rendered as DSL: ${(error as Error).message}`);
  }
  if (model.schema_version !== '1.1') {
    const line = rendered.split('\n').findIndex((l) => /^\s*schema\s/.test(l));
    const position = line < 0 ? undefined : { line: line + 1, column: rendered.split('\n')[line]!.indexOf('schema') + 8 };
    const at = position ? ` (line ${position.line}, column ${position.column}${dsl === undefined ? " of the model's DSL form" : ''})` : '';
    throw new FgaError('invalid_authorization_model', `The model's schema_version must be '1.1', not '${String(model.schema_version)}'${at}.`, position);
  }
  const { copy, stripped } = withoutTuplesetConditions(model);
  try {
    validator.validateJSON(copy as Parameters<typeof validator.validateJSON>[0], undefined, rendered);
  } catch (error) {
    const errors = (error as { errors?: TransformerError[] }).errors;
    // Conditions taken off tupleset restrictions are used; the validator, not seeing them, calls them unused.
    const left = errors?.filter((e) => !(e.metadata?.errorType === 'condition-not-used' && stripped.has(e.metadata.condition ?? e.metadata.symbol ?? '')));
    if (!errors || left!.length > 0) throw fromTransformer(errors ? { errors: left } : error, dsl === undefined ? 'json' : 'dsl');
  }
  for (const name of stripped) {
    if (!model.conditions?.[name]) throw new FgaError('invalid_authorization_model', `\`${name}\` is not a defined condition in the model.`);
  }
  return checkConditions(model, rendered, dsl === undefined ? 'json' : 'dsl');
}

/**
 * The model with the conditions taken off the type restrictions of tupleset relations: the syntax transformer's
 * validator (0.2.2) crashes on `define parent: [folder with c]` used in a tuple-to-userset. The names it took off are
 * checked here instead.
 */
function withoutTuplesetConditions(model: AuthorizationModel): { copy: AuthorizationModel; stripped: Set<string> } {
  const stripped = new Set<string>();
  const tuplesets = (rewrite: Userset, into: Set<string>) => {
    if (rewrite.tupleToUserset) into.add(rewrite.tupleToUserset.tupleset.relation);
    for (const child of rewrite.union?.child ?? rewrite.intersection?.child ?? []) tuplesets(child, into);
    if (rewrite.difference) {
      tuplesets(rewrite.difference.base, into);
      tuplesets(rewrite.difference.subtract, into);
    }
  };
  const types = model.type_definitions.map((type) => {
    const names = new Set<string>();
    for (const rewrite of Object.values(type.relations ?? {})) tuplesets(rewrite, names);
    const relations = type.metadata?.relations;
    if (!relations || ![...names].some((n) => relations[n]?.directly_related_user_types?.some((ref) => ref.condition))) return type;
    const copied: typeof relations = { ...relations };
    for (const name of names) {
      const refs = relations[name]?.directly_related_user_types;
      if (!refs?.some((ref) => ref.condition)) continue;
      const seen = new Set<string>();
      const plain: RelationReference[] = [];
      for (const ref of refs) {
        if (ref.condition) stripped.add(ref.condition);
        const key = `${ref.type}#${ref.relation ?? ''}#${ref.wildcard ? '*' : ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const rest: RelationReference = { type: ref.type };
        if (ref.relation) rest.relation = ref.relation;
        if (ref.wildcard) rest.wildcard = {};
        plain.push(rest);
      }
      copied[name] = { ...relations[name], directly_related_user_types: plain };
    }
    return { ...type, metadata: { ...type.metadata, relations: copied } };
  });
  return stripped.size === 0 ? { copy: model, stripped } : { copy: { ...model, type_definitions: types }, stripped };
}

/** Validates a model in OpenFGA's JSON form; throws FgaError('invalid_authorization_model') with a position in its DSL rendering. */
export async function validateModel(model: AuthorizationModel): Promise<void> {
  await validate(model, undefined);
}

/** The DSL → the JSON model (validated; `id` empty). Errors carry 1-based line and column in the DSL. */
export async function parseModelDsl(dsl: string): Promise<AuthorizationModel> {
  if (dsl.length > MODEL_LIMITS.modelBytes) throw new FgaError('invalid_authorization_model', `A model is at most ${MODEL_LIMITS.modelBytes / 1024} KiB.`);
  const { transformer } = await syntaxTransformer();
  let json;
  try {
    json = transformer.transformDSLToJSONObject(dsl);
  } catch (error) {
    throw fromTransformer(error, 'dsl');
  }
  const model = { id: '', ...json } as unknown as AuthorizationModel;
  if (model.conditions && Object.keys(model.conditions).length === 0) delete model.conditions;
  await validate(model, dsl);
  return model;
}

export async function modelToDsl(model: AuthorizationModel): Promise<string> {
  const { transformer } = await syntaxTransformer();
  return transformer.transformJSONToDSL(model as Parameters<typeof transformer.transformJSONToDSL>[0]);
}

/** Walks a rewrite: `visit` sees each leaf with whether it sits under an intersection or an exclusion's base. */
function leaves(rewrite: Userset, unsure: boolean, visit: (leaf: Userset, unsure: boolean) => void) {
  if (rewrite.union) for (const child of rewrite.union.child) leaves(child, unsure, visit);
  else if (rewrite.intersection) for (const child of rewrite.intersection.child) leaves(child, true, visit);
  else if (rewrite.difference) leaves(rewrite.difference.base, true, visit);
  else visit(rewrite, unsure);
}

/**
 * What queries need of a (valid) model: each relation's rewrite and direct types, the compiled
 * conditions and the reverse graph. Nothing is cached here: the caller keeps the compiled model.
 */
export function compileModel(model: AuthorizationModel): CompiledModel {
  const conditions = new Map<string, CompiledCondition>();
  for (const [key, definition] of Object.entries(model.conditions ?? {})) {
    const result = compileCondition(definition);
    if (!result.ok) throw new FgaError('invalid_authorization_model', `Condition '${key}': ${result.error.message}`);
    conditions.set(key, result.condition);
  }
  const types = new Map<string, CompiledType>();
  for (const definition of model.type_definitions) {
    const relations = new Map<string, CompiledRelation>();
    for (const [name, rewrite] of Object.entries(definition.relations ?? {})) {
      const directTypes = definition.metadata?.relations?.[name]?.directly_related_user_types ?? [];
      relations.set(name, { type: definition.type, name, rewrite, directTypes, tuplesetOf: false, key: `${definition.type}#${name}` });
    }
    types.set(definition.type, { name: definition.type, relations });
  }
  const relationOf = (type: string, name: string) => types.get(type)?.relations.get(name);
  const parentsOf = (relation: CompiledRelation | undefined) =>
    (relation?.directTypes ?? []).filter((ref) => !ref.relation && !ref.wildcard).map((ref) => ref.type);

  const reverse = new Map<string, ReverseEdge[]>();
  const edge = (from: string, to: ReverseEdge) => {
    const list = reverse.get(from);
    if (list) list.push(to);
    else reverse.set(from, [to]);
  };
  for (const type of types.values()) {
    for (const relation of type.relations.values()) {
      leaves(relation.rewrite, false, (leaf, unsure) => {
        if (leaf.this) {
          for (const ref of relation.directTypes) {
            const from = ref.wildcard ? `${ref.type}:*` : ref.relation ? `${ref.type}#${ref.relation}` : ref.type;
            edge(from, { kind: 'direct', objectType: type.name, relation: relation.name, unsure });
          }
        } else if (leaf.computedUserset) {
          edge(`${type.name}#${leaf.computedUserset.relation}`, { kind: 'computed', objectType: type.name, relation: relation.name, unsure });
        } else if (leaf.tupleToUserset) {
          const tupleset = type.relations.get(leaf.tupleToUserset.tupleset.relation);
          if (tupleset) tupleset.tuplesetOf = true;
          for (const parent of new Set(parentsOf(tupleset))) {
            if (!relationOf(parent, leaf.tupleToUserset.computedUserset.relation)) continue;
            edge(`${parent}#${leaf.tupleToUserset.computedUserset.relation}`, {
              kind: 'ttu',
              objectType: type.name,
              relation: relation.name,
              tupleset: leaf.tupleToUserset.tupleset.relation,
              unsure,
            });
          }
        }
      });
    }
  }

  const reachable = new Map<string, Set<string>>();
  return {
    id: model.id,
    model,
    types,
    conditions,
    reverse,
    reachableFrom(key) {
      let nodes = reachable.get(key);
      if (!nodes) reachable.set(key, (nodes = reachFrom(reverse, key)));
      return nodes;
    },
  };
}

/** The relations a type defines (AuthZEN's action search). */
export function relationsOf(model: CompiledModel, type: string): string[] {
  return [...(model.types.get(type)?.relations.keys() ?? [])];
}

export function typeNames(model: CompiledModel): string[] {
  return [...model.types.keys()];
}
