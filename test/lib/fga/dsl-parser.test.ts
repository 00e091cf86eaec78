import { afterAll, describe, expect, it } from 'vitest';
import { createDslParser } from '../../../lib/fga/dsl-parser.ts';
import { MODEL_LIMITS, parseModelDsl } from '../../../lib/fga/model.ts';
import { FgaError } from '../../../lib/fga/types.ts';

const HEAD = 'model\n  schema 1.1\ntype user\n';
const parser = createDslParser();
afterAll(() => parser.close());

const bigModel = () => {
  let dsl = HEAD;
  for (let i = 0; i < 150; i++) {
    dsl += `type t${i}\n  relations\n    define parent: [t${(i + 1) % 150}]\n    define owner: [user]\n    define editor: [user, t${i}#owner] or owner\n    define viewer: [user, user:*] or editor or viewer from parent\n`;
  }
  return dsl;
};

const failureOf = async (parsing: Promise<unknown>) => {
  const error = await parsing.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FgaError);
  const { code, message, position } = error as FgaError;
  return { code, message, position };
};

describe('createDslParser: parseModelDsl on a worker thread', () => {
  it('answers the model parseModelDsl answers', async () => {
    const dsl = `${HEAD}type doc\n  relations\n    define owner: [user]\n    define viewer: [user, user:*] or owner\n`;
    expect(await parser.parse(dsl)).toEqual(await parseModelDsl(dsl));
  });

  it.each([
    ['syntax', `${HEAD}type doc\n  relations\n    define viewer [user]\n`],
    ['invalid type', `${HEAD}type doc\n  relations\n    define viewer: [user, foo]\n`],
    ['CEL', `${HEAD}type doc\n  relations\n    define viewer: [user with c]\ncondition c(x: int) {\n  x + 1\n}\n`],
  ])('fails with the error parseModelDsl throws (%s): code, message and position', async (_name, dsl) => {
    const expected = await parseModelDsl(dsl).then(
      () => undefined,
      (error: unknown) => error as FgaError,
    );
    expect(expected).toBeInstanceOf(FgaError);
    expect(await failureOf(parser.parse(dsl))).toEqual({ code: expected!.code, message: expected!.message, position: expected!.position });
  });

  it('refuses a model over the size limit without parsing it', async () => {
    expect(await failureOf(parser.parse('x'.repeat(MODEL_LIMITS.modelBytes + 1)))).toEqual({
      code: 'invalid_authorization_model',
      message: 'A model is at most 256 KiB.',
      position: undefined,
    });
  });

  it('parses models one after the other when asked for several at once', async () => {
    const dsls = Array.from({ length: 4 }, (_, i) => `${HEAD}type doc${i}\n  relations\n    define viewer: [user]\n`);
    const models = await Promise.all(dsls.map((dsl) => parser.parse(dsl)));
    expect(models.map((m) => m.type_definitions[1]!.type)).toEqual(['doc0', 'doc1', 'doc2', 'doc3']);
  });

  it('ends a parse that runs past its time as a 400 error, and parses the next one on a new worker', async () => {
    expect(await failureOf(parser.parse(bigModel(), 1))).toEqual({
      code: 'invalid_authorization_model',
      message: "The model's DSL took longer than 1 ms to parse; send a smaller model, or its JSON form.",
      position: undefined,
    });
    const dsl = `${HEAD}type doc\n  relations\n    define viewer: [user]\n`;
    expect(await parser.parse(dsl)).toEqual(await parseModelDsl(dsl));
  });

  it('fails the parses still waiting when closed', async () => {
    const closing = createDslParser();
    const parses = [closing.parse(bigModel()), closing.parse(bigModel())].map((p) =>
      p.then(
        () => 'parsed',
        (e: Error) => e.message,
      ),
    );
    await closing.close();
    expect(await Promise.all(parses)).toEqual(['The DSL parser stopped.', 'The DSL parser is closed.']);
    await expect(closing.parse(HEAD)).rejects.toThrow('The DSL parser is closed.');
  });
});
