// OpenFGA conditions: a CEL expression over typed parameters, compiled with the service's CEL library, limits and
// cost budget (lib/authz). The parameters are the expression's variables; a tuple's context and the request's are
// merged (the tuple's values win, as OpenFGA documents) and converted to the declared types before evaluation.
import { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import ipaddr from 'ipaddr.js';
import type { CelNode } from '../authz/cel-ast.ts';
import { allNodes } from '../authz/cel-ast.ts';
import { CEL_LIMITS, evaluateMetered, parseBooleanCondition, type ConditionError } from '../authz/conditions.ts';
import { withRe2Matches } from '../authz/cel-patterns.ts';
import { FgaError, type ConditionDefinition, type ConditionParameter } from './types.ts';

/** An `ipaddress` parameter's value: CEL sees it as the custom type `ipaddress` with `in_cidr(string)`. */
export class IpAddress {
  readonly address: ipaddr.IPv4 | ipaddr.IPv6;
  constructor(address: ipaddr.IPv4 | ipaddr.IPv6) {
    this.address = address;
  }
}

function inCidr(ip: IpAddress, cidr: string): boolean {
  let range: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    range = ipaddr.parseCIDR(cidr);
  } catch {
    throw new Error(`'${cidr}' is not a CIDR range.`);
  }
  let address = ip.address;
  if (address.kind() !== range[0].kind()) {
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
    else return false;
    if (address.kind() !== range[0].kind()) return false;
  }
  return address.match(range);
}

const base = withRe2Matches(new Environment({ limits: CEL_LIMITS }))
  .registerType('ipaddress', IpAddress)
  .registerFunction('ipaddress.in_cidr(string): bool', inCidr);

/** OpenFGA's parameter type names and the CEL type each becomes. */
const SCALARS: Record<string, string> = {
  TYPE_NAME_BOOL: 'bool',
  TYPE_NAME_STRING: 'string',
  TYPE_NAME_INT: 'int',
  TYPE_NAME_UINT: 'uint',
  TYPE_NAME_DOUBLE: 'double',
  TYPE_NAME_BYTES: 'bytes',
  TYPE_NAME_DURATION: 'google.protobuf.Duration',
  TYPE_NAME_TIMESTAMP: 'google.protobuf.Timestamp',
  TYPE_NAME_ANY: 'dyn',
  TYPE_NAME_IPADDRESS: 'ipaddress',
};

/** The CEL type of a parameter, or why it has none. */
export function celTypeOf(parameter: ConditionParameter): string | { error: string } {
  const scalar = SCALARS[parameter.type_name];
  if (scalar) return scalar;
  if (parameter.type_name === 'TYPE_NAME_MAP' || parameter.type_name === 'TYPE_NAME_LIST') {
    const generic = parameter.generic_types?.[0];
    if (!generic || parameter.generic_types!.length !== 1) return { error: `${parameter.type_name} needs exactly one generic type` };
    const inner = celTypeOf(generic);
    if (typeof inner !== 'string') return inner;
    return parameter.type_name === 'TYPE_NAME_MAP' ? `map<string, ${inner}>` : `list<${inner}>`;
  }
  return { error: `unknown parameter type '${parameter.type_name}'` };
}

export interface CompiledCondition {
  name: string;
  parameters: Record<string, ConditionParameter>;
  /** The parameters the expression reads. */
  used: string[];
  program: ReturnType<Environment['parse']>;
}

/** Compiles a condition's expression against its typed parameters; errors are positioned in the expression. */
export function compileCondition(definition: ConditionDefinition): { ok: true; condition: CompiledCondition } | { ok: false; error: ConditionError } {
  const parameters = definition.parameters ?? {};
  const env = base.clone();
  for (const [name, parameter] of Object.entries(parameters)) {
    const type = celTypeOf(parameter);
    if (typeof type !== 'string') return { ok: false, error: { message: `Parameter '${name}': ${type.error}.`, line: 1, column: 1 } };
    env.registerVariable(name, type);
  }
  const parsed = parseBooleanCondition(env, definition.expression);
  if (!parsed.ok) return parsed;
  const used = new Set<string>();
  for (const node of allNodes((parsed.program as unknown as { ast: CelNode }).ast)) {
    if (node.op === 'id' && typeof node.args === 'string' && Object.hasOwn(parameters, node.args)) used.add(node.args);
  }
  return { ok: true, condition: { name: definition.name, parameters, used: [...used], program: parsed.program } };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DURATION_PART = /^(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/;
const NANOS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Go's duration syntax (`1h30m`, `-1.5s`, `0`) → nanoseconds, or undefined. */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1n : 1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const match = DURATION_PART.exec(rest);
    if (!match) return undefined;
    const [whole = '0', fraction = ''] = match[1]!.split('.');
    const unit = NANOS[match[2]!]!;
    total += BigInt(whole || '0') * unit + (BigInt(fraction.slice(0, 18).padEnd(18, '0')) * unit) / 10n ** 18n;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}

const integer = (value: unknown): bigint | undefined => {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^[+-]?\d{1,20}$/.test(value)) return BigInt(value);
  if (typeof value === 'bigint') return value;
  return undefined;
};

/** A context value converted to its parameter's type, or undefined when it does not convert. */
export function convertValue(parameter: ConditionParameter, value: unknown): unknown {
  switch (parameter.type_name) {
    case 'TYPE_NAME_BOOL':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'TYPE_NAME_STRING':
      return typeof value === 'string' ? value : undefined;
    case 'TYPE_NAME_INT': {
      const n = integer(value);
      return n !== undefined && n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
    }
    case 'TYPE_NAME_UINT': {
      const n = integer(value);
      return n !== undefined && n >= 0n && n <= UINT64_MAX ? new UnsignedInt(n) : undefined;
    }
    case 'TYPE_NAME_DOUBLE': {
      if (typeof value === 'number') return value;
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const n = Number(value);
      return Number.isNaN(n) && value !== 'NaN' ? undefined : n;
    }
    case 'TYPE_NAME_BYTES':
      return typeof value === 'string' ? new TextEncoder().encode(value) : undefined;
    case 'TYPE_NAME_DURATION': {
      const nanos = typeof value === 'string' ? parseGoDuration(value) : undefined;
      if (nanos === undefined) return undefined;
      return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
    }
    case 'TYPE_NAME_TIMESTAMP': {
      if (typeof value !== 'string' || !RFC3339.test(value)) return undefined;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'TYPE_NAME_IPADDRESS':
      if (typeof value !== 'string' || !ipaddr.isValid(value)) return undefined;
      return new IpAddress(ipaddr.parse(value));
    case 'TYPE_NAME_ANY':
      return value === undefined ? undefined : value;
    case 'TYPE_NAME_LIST': {
      if (!Array.isArray(value)) return undefined;
      const out: unknown[] = [];
      for (const item of value) {
        const converted = convertValue(parameter.generic_types![0]!, item);
        if (converted === undefined) return undefined;
        out.push(converted);
      }
      return out;
    }
    case 'TYPE_NAME_MAP': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      const out = new Map<string, unknown>();
      for (const [key, item] of Object.entries(value)) {
        const converted = convertValue(parameter.generic_types![0]!, item);
        if (converted === undefined) return undefined;
        out.set(key, converted);
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** Why a tuple's stored context does not fit its condition (an unknown key, a value that does not convert), or undefined. */
export function contextProblem(condition: CompiledCondition, context: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(context)) {
    const parameter = condition.parameters[key];
    if (!parameter) return `condition '${condition.name}' has no parameter '${key}'`;
    if (convertValue(parameter, value) === undefined) return `parameter '${key}' of condition '${condition.name}' is not a valid ${typeName(parameter)}`;
  }
  return undefined;
}

const typeName = (parameter: ConditionParameter): string => {
  const base = parameter.type_name.replace('TYPE_NAME_', '').toLowerCase();
  const generic = parameter.generic_types?.[0];
  return generic ? `${base}<${typeName(generic)}>` : base;
};

/**
 * Evaluates a condition with the tuple's context over the request's (the tuple's values win). Throws
 * FgaError('condition_missing_parameters') when the expression needs a parameter neither supplies, and
 * FgaError('condition_evaluation_error') for a value that does not convert or a failed evaluation (a spent budget).
 * `describe` names the tuple in messages; it is called only on error.
 */
export function evaluateCondition(
  condition: CompiledCondition,
  tupleContext: Record<string, unknown>,
  requestContext: Record<string, unknown> | undefined,
  describe: () => string,
): boolean {
  const input: Record<string, unknown> = {};
  let missing: string[] | undefined;
  for (const name of condition.used) {
    let value = Object.hasOwn(tupleContext, name) ? tupleContext[name] : undefined;
    if (value === undefined && requestContext && Object.hasOwn(requestContext, name)) value = requestContext[name];
    if (value === undefined || value === null) {
      (missing ??= []).push(name);
      continue;
    }
    const converted = convertValue(condition.parameters[name]!, value);
    if (converted === undefined) {
      throw new FgaError(
        'condition_evaluation_error',
        `failed to evaluate relationship condition '${condition.name}' on tuple '${describe()}': parameter '${name}' is not a valid ${typeName(condition.parameters[name]!)}`,
      );
    }
    input[name] = converted;
  }
  const result = evaluateMetered(condition.program, input);
  if (typeof result === 'boolean') return result;
  if (missing) {
    throw new FgaError(
      'condition_missing_parameters',
      `failed to evaluate relationship condition '${condition.name}' on tuple '${describe()}': missing context parameters '${missing.sort().join(', ')}'`,
    );
  }
  throw new FgaError('condition_evaluation_error', `failed to evaluate relationship condition '${condition.name}' on tuple '${describe()}': ${result.error}`);
}
