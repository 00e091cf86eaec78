// Check, with OpenFGA's semantics. Each object#relation is resolved through its rewrite; sibling branches run
// side by side so their look-ups are read in one batched reader call per step (TupleLoader), a union answers at its
// first grant, an intersection at its first denial. An outcome is a path (granted), false, or an FgaError that is
// raised only when nothing else granted (a missing condition parameter, a too deep resolution), as OpenFGA does.
import { evaluateCondition } from './conditions.ts';
import type { CompiledModel, CompiledRelation } from './model.ts';
import { contextualTuples, parseTarget, subjectKey, TupleLoader, withContextualTuples } from './resolution.ts';
import { describeTuple, formatTupleUser, formatUser } from './tuples.ts';
import { FGA_LIMITS, FgaError, type CheckRequest, type CheckResult, type Tuple, type TupleReader, type UserRef, type Userset } from './types.ts';

/** Granted (the path below the node, ending at the user), denied, or an error kept until nothing grants. */
export type Outcome = string[] | false | FgaError;

interface Chain {
  key: string;
  up: Chain | undefined;
}

const onChain = (chain: Chain | undefined, key: string) => {
  for (let c = chain; c; c = c.up) if (c.key === key) return true;
  return false;
};

/** Resolves checks for one subject within one request; list-objects shares one across its candidates. */
export class Resolver {
  readonly model: CompiledModel;
  readonly loader: TupleLoader;
  readonly user: UserRef;
  /** The relations the subject can possibly hold. */
  private readonly reach: Set<string>;
  private readonly userText: string;
  private readonly context: Record<string, unknown> | undefined;
  private readonly memo = new Map<string, Outcome>();
  /** Cycles cut and depths exceeded so far: an outcome that saw one is not memoised (it depends on the path). */
  private cuts = 0;

  constructor(model: CompiledModel, loader: TupleLoader, user: UserRef, context: Record<string, unknown> | undefined) {
    this.model = model;
    this.loader = loader;
    this.user = user;
    this.reach = model.reachableFrom(subjectKey(user));
    this.userText = formatUser(user);
    this.context = context;
  }

  /** Whether the subject has `relation` on `type:id`. */
  resolve(type: string, id: string, relation: string, depth: number, chain: Chain | undefined): Outcome | Promise<Outcome> {
    const definition = this.model.types.get(type)?.relations.get(relation);
    if (!definition || !this.reach.has(definition.key)) return false;
    const u = this.user;
    if (u.relation === relation && u.type === type && u.id === id) return [`${type}:${id}#${relation}`];
    const key = `${type}:${id}#${relation}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    if (onChain(chain, key)) {
      this.cuts++;
      return false;
    }
    if (depth > FGA_LIMITS.resolutionDepth) {
      this.cuts++;
      return new FgaError('authorization_model_resolution_too_complex', `Resolution of '${key}' exceeds the depth limit of ${FGA_LIMITS.resolutionDepth}.`);
    }
    const cuts = this.cuts;
    const link: Chain = { key, up: chain };
    const finish = (outcome: Outcome): Outcome => {
      const result = Array.isArray(outcome) ? [key, ...outcome] : outcome;
      if (this.cuts === cuts) this.memo.set(key, result);
      return result;
    };
    const outcome = this.rewrite(definition, id, definition.rewrite, depth, link);
    return outcome instanceof Promise ? outcome.then(finish) : finish(outcome);
  }

  private rewrite(definition: CompiledRelation, id: string, rewrite: Userset, depth: number, chain: Chain): Outcome | Promise<Outcome> {
    if (rewrite.this) return this.direct(definition, id, depth, chain);
    if (rewrite.computedUserset) return this.resolve(definition.type, id, rewrite.computedUserset.relation, depth + 1, chain);
    if (rewrite.tupleToUserset) return this.tupleToUserset(definition, id, rewrite.tupleToUserset, depth, chain);
    if (rewrite.union) return anyGrant(rewrite.union.child.map((child) => this.rewrite(definition, id, child, depth, chain)));
    if (rewrite.intersection) return allGrant(rewrite.intersection.child.map((child) => this.rewrite(definition, id, child, depth, chain)));
    if (rewrite.difference) {
      return butNot(
        this.rewrite(definition, id, rewrite.difference.base, depth, chain),
        this.rewrite(definition, id, rewrite.difference.subtract, depth, chain),
      );
    }
    return false;
  }

  /** Whether a tuple's condition (if any) holds; an FgaError when it cannot be evaluated. */
  conditionHolds(t: Tuple): boolean | FgaError {
    if (!t.condition) return true;
    const condition = this.model.conditions.get(t.condition.name);
    if (!condition) return new FgaError('condition_evaluation_error', `Condition '${t.condition.name}' of tuple '${describeTuple(t)}' is not in the model.`);
    try {
      return evaluateCondition(condition, t.condition.context, this.context, () => describeTuple(t));
    } catch (error) {
      if (error instanceof FgaError) return error;
      throw error;
    }
  }

  private async direct(definition: CompiledRelation, id: string, depth: number, chain: Chain): Promise<Outcome> {
    const tuples = await this.loader.tuples(definition.type, id, definition.name);
    const u = this.user;
    let error: FgaError | undefined;
    let nested: (Outcome | Promise<Outcome>)[] | undefined;
    for (const t of tuples) {
      const exact = t.userType === u.type && t.userId === u.id && t.userRelation === u.relation;
      const wildcard = !exact && t.userId === '*' && t.userType === u.type && u.relation === '';
      if (exact || wildcard) {
        const holds = this.conditionHolds(t);
        if (holds === true) return [formatTupleUser(t)];
        if (holds !== false) error ??= holds;
        continue;
      }
      if (t.userRelation === '') continue;
      const target = this.model.types.get(t.userType)?.relations.get(t.userRelation);
      if (!target || !this.reach.has(target.key)) continue;
      const holds = this.conditionHolds(t);
      if (holds === false) continue;
      if (holds !== true) {
        error ??= holds;
        continue;
      }
      (nested ??= []).push(this.resolve(t.userType, t.userId, t.userRelation, depth + 1, chain));
    }
    if (!nested) return error ?? false;
    const outcome = await anyGrant(nested);
    return Array.isArray(outcome) ? outcome : (error ?? outcome);
  }

  private async tupleToUserset(
    definition: CompiledRelation,
    id: string,
    ttu: NonNullable<Userset['tupleToUserset']>,
    depth: number,
    chain: Chain,
  ): Promise<Outcome> {
    const tuples = await this.loader.tuples(definition.type, id, ttu.tupleset.relation);
    const computed = ttu.computedUserset.relation;
    let error: FgaError | undefined;
    let parents: (Outcome | Promise<Outcome>)[] | undefined;
    for (const t of tuples) {
      if (t.userRelation !== '' || t.userId === '*') continue;
      const target = this.model.types.get(t.userType)?.relations.get(computed);
      if (!target || !this.reach.has(target.key)) continue;
      const holds = this.conditionHolds(t);
      if (holds === false) continue;
      if (holds !== true) {
        error ??= holds;
        continue;
      }
      (parents ??= []).push(this.resolve(t.userType, t.userId, computed, depth + 1, chain));
    }
    if (!parents) return error ?? false;
    const outcome = await anyGrant(parents);
    return Array.isArray(outcome) ? outcome : (error ?? outcome);
  }
}

/** The first grant among the outcomes; else the first error; else false. */
export function anyGrant(outcomes: (Outcome | Promise<Outcome>)[]): Outcome | Promise<Outcome> {
  let error: FgaError | undefined;
  let promises: Promise<Outcome>[] | undefined;
  for (const o of outcomes) {
    if (o instanceof Promise) (promises ??= []).push(o);
    else if (Array.isArray(o)) return o;
    else if (o instanceof FgaError) error ??= o;
  }
  if (!promises) return error ?? false;
  const waiting = promises;
  return new Promise<Outcome>((resolve, reject) => {
    let left = waiting.length;
    for (const p of waiting) {
      p.then((o) => {
        if (Array.isArray(o)) resolve(o);
        else if (o instanceof FgaError) error ??= o;
        if (--left === 0) resolve(error ?? false);
      }, reject);
    }
  });
}

/** A grant when every outcome grants (the first one's path); false at the first denial; else the first error. */
export function allGrant(outcomes: (Outcome | Promise<Outcome>)[]): Outcome | Promise<Outcome> {
  let error: FgaError | undefined;
  let promises: Promise<Outcome>[] | undefined;
  for (const o of outcomes) {
    if (o instanceof Promise) (promises ??= []).push(o);
    else if (o === false) return false;
    else if (o instanceof FgaError) error ??= o;
  }
  const first = () => outcomes[0] as Outcome;
  if (!promises) return error ?? first();
  const waiting = promises;
  return new Promise<Outcome>((resolve, reject) => {
    let left = waiting.length;
    for (const p of waiting) {
      p.then((o) => {
        if (o === false) resolve(false);
        else if (o instanceof FgaError) error ??= o;
        if (--left === 0) {
          if (error) return resolve(error);
          const head = outcomes[0]!;
          if (head instanceof Promise) head.then(resolve, reject);
          else resolve(head);
        }
      }, reject);
    }
  });
}

/** `base but not subtract`. */
export function butNot(base: Outcome | Promise<Outcome>, subtract: Outcome | Promise<Outcome>): Outcome | Promise<Outcome> {
  const decide = (b: Outcome, s: Outcome): Outcome => {
    if (b === false || Array.isArray(s)) return false;
    if (b instanceof FgaError) return b;
    if (s instanceof FgaError) return s;
    return b;
  };
  if (!(base instanceof Promise) && !(subtract instanceof Promise)) return decide(base, subtract);
  if (base === false) return false;
  if (Array.isArray(subtract)) return false;
  return new Promise<Outcome>((resolve, reject) => {
    let b: Outcome | undefined = base instanceof Promise ? undefined : base;
    let s: Outcome | undefined = subtract instanceof Promise ? undefined : subtract;
    const settle = () => {
      if (b === false || Array.isArray(s)) resolve(false);
      else if (b !== undefined && s !== undefined) resolve(decide(b, s));
    };
    if (base instanceof Promise) base.then((o) => ((b = o), settle()), reject);
    if (subtract instanceof Promise) subtract.then((o) => ((s = o), settle()), reject);
  });
}

/** The outcome as a check answers it: granted with its path, denied, or the error thrown. */
export function toResult(label: string, outcome: Outcome): CheckResult {
  if (outcome instanceof FgaError) throw outcome;
  if (outcome === false) return { allowed: false, path: null };
  return { allowed: true, path: outcome[0] === label ? outcome : [label, ...outcome] };
}

/** Whether `request.user` has `request.relation` on `request.object`, with the path that granted. */
export async function check(model: CompiledModel, reader: TupleReader, request: CheckRequest): Promise<CheckResult> {
  const { obj, subject } = parseTarget(model, request.object, request.relation, request.user);
  const loader = new TupleLoader(withContextualTuples(reader, contextualTuples(model, request)));
  const resolver = new Resolver(model, loader, subject, request.context);
  try {
    const outcome = await resolver.resolve(obj.type, obj.id, request.relation, 0, undefined);
    return toResult(`${request.object}#${request.relation}`, outcome);
  } finally {
    loader.done = true;
  }
}

/**
 * Several checks at once (OpenFGA's BatchCheck): the items without contextual tuples share one loader, so their
 * look-ups of a step are read together. Each item answers its result or its own error.
 */
export async function batchCheck(model: CompiledModel, reader: TupleReader, items: readonly CheckRequest[]): Promise<(CheckResult | FgaError)[]> {
  if (items.length > FGA_LIMITS.batchCheckItems) {
    throw new FgaError('validation_error', `A batch holds at most ${FGA_LIMITS.batchCheckItems} checks, not ${items.length}.`);
  }
  const shared = new TupleLoader(reader);
  try {
    return await Promise.all(
      items.map(async (item) => {
        try {
          const { obj, subject } = parseTarget(model, item.object, item.relation, item.user);
          const own = item.contextualTuples?.length ? new TupleLoader(withContextualTuples(reader, contextualTuples(model, item))) : undefined;
          try {
            const outcome = await new Resolver(model, own ?? shared, subject, item.context).resolve(obj.type, obj.id, item.relation, 0, undefined);
            return toResult(`${item.object}#${item.relation}`, outcome);
          } finally {
            if (own) own.done = true;
          }
        } catch (error) {
          if (error instanceof FgaError) return error;
          throw error;
        }
      }),
    );
  } finally {
    shared.done = true;
  }
}
