// POST /access/v1/evaluations: defaults replaced as whole entities, the three evaluation semantics, incomplete
// items, and the single-decision form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';

let t: TestApp;
let pdp: Pdp;

beforeAll(async () => {
  t = await startTestApp();
  pdp = await authzenEnvironment(t);
});
afterAll(() => t?.close());

const doc = (id: string) => ({ type: 'document', id });
const user = (id: string) => ({ type: 'user', id });
const deny = { code: '200', reason: 'deny_on_first_deny' };

describe('POST /access/v1/evaluations', () => {
  it('applies top-level defaults and answers every item in order', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('alice'),
      action: { name: 'read' },
      evaluations: [{ resource: doc('doc-1') }, { resource: doc('doc-2'), action: { name: 'write' } }, { subject: user('bob'), resource: doc('doc-2') }],
    });
    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toEqual({ evaluations: [{ decision: true }, { decision: false }, { decision: true }] });
  });

  it('replaces a default entity as a whole: an item subject without id is not completed from the default', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('alice'),
      action: { name: 'read' },
      resource: doc('doc-1'),
      evaluations: [{}, { subject: { type: 'user' } }, { resource: { id: 'doc-1' } }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      evaluations: [
        { decision: true },
        { decision: false, context: { error: { status: 400, message: expect.stringContaining('subject.id') } } },
        { decision: false, context: { error: { status: 400, message: expect.stringContaining('resource.type') } } },
      ],
    });
  });

  it('fails an item that lacks an entity after the defaults, not the request', async () => {
    const res = await pdp.post('evaluations', {
      action: { name: 'read' },
      evaluations: [{ subject: user('alice'), resource: doc('doc-1') }, { subject: user('alice') }],
    });
    expect(res.body).toEqual({
      evaluations: [{ decision: true }, { decision: false, context: { error: { status: 400, message: expect.stringContaining('resource') } } }],
    });
  });

  it('deny_on_first_deny stops at the first deny, which says so', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('alice'),
      action: { name: 'read' },
      options: { evaluations_semantic: 'deny_on_first_deny' },
      evaluations: [{ resource: doc('doc-1') }, { resource: doc('doc-404') }, { resource: doc('doc-1') }],
    });
    expect(res.body).toEqual({ evaluations: [{ decision: true }, { decision: false, context: deny }] });
  });

  it('deny_on_first_deny with explain keeps the explanation aside', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('alice'),
      action: { name: 'read' },
      options: { evaluations_semantic: 'deny_on_first_deny', explain: true },
      evaluations: [{ resource: doc('doc-404') }, { resource: doc('doc-1') }],
    });
    expect(res.body).toEqual({ evaluations: [{ decision: false, context: { ...deny, explanation: expect.objectContaining({ permitted: false }) } }] });
  });

  it('permit_on_first_permit stops at the first permit', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('bob'),
      action: { name: 'read' },
      options: { evaluations_semantic: 'permit_on_first_permit' },
      evaluations: [{ resource: doc('doc-1') }, { resource: doc('doc-2') }, { resource: doc('doc-3') }],
    });
    expect(res.body).toEqual({ evaluations: [{ decision: false }, { decision: true }] });
  });

  it('execute_all (explicit) answers everything, with reasons under explain', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('bob'),
      action: { name: 'read' },
      options: { evaluations_semantic: 'execute_all', explain: true },
      evaluations: [{ resource: doc('doc-1') }, { resource: doc('doc-2') }],
    });
    expect(res.body).toEqual({
      evaluations: [
        { decision: false, context: { reason: expect.objectContaining({ permitted: false, code: 'no_permission' }) } },
        {
          decision: true,
          context: {
            reason: expect.objectContaining({ permitted: true, role: 'viewer', assignedRole: 'editor', via: { type: 'group', id: pdp.ids.groups.editors } }),
          },
        },
      ],
    });
  });

  it.each([
    ['absent', {}],
    ['empty', { evaluations: [] }],
  ])('with evaluations %s, behaves as a single evaluation', async (_what, extra) => {
    const res = await pdp.post('evaluations', { subject: user('alice'), action: { name: 'read' }, resource: doc('doc-1'), ...extra });
    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toEqual({ decision: true });
  });

  it('400 for a single evaluation that misses an entity', async () => {
    const res = await pdp.post('evaluations', { subject: user('alice'), action: { name: 'read' } });
    expect(res).toMatchObject({ status: 400, body: { code: 'request.invalid', details: [{ path: 'body.resource', message: expect.any(String) }] } });
  });

  it.each([
    ['an unknown semantic', { options: { evaluations_semantic: 'first_wins' } }, 'body.options.evaluations_semantic'],
    ['evaluations not an array', { evaluations: {} }, 'body.evaluations'],
    ['a string item', { evaluations: ['x'] }, 'body.evaluations.0'],
    ['a wrong type in an item', { evaluations: [{ subject: { type: 'user', id: 5 } }] }, 'body.evaluations.0.subject.id'],
    ['more than 1000 items', { evaluations: Array.from({ length: 1001 }, () => ({})) }, 'body.evaluations'],
  ])('400 for %s', async (_what, extra, path) => {
    const res = await pdp.post('evaluations', { subject: user('alice'), action: { name: 'read' }, resource: doc('doc-1'), ...extra });
    expect(res).toMatchObject({ status: 400, body: { code: 'request.invalid', details: [expect.objectContaining({ path })] } });
  });

  it('answers 1000 items', async () => {
    const res = await pdp.post('evaluations', {
      subject: user('alice'),
      action: { name: 'read' },
      evaluations: Array.from({ length: 1000 }, () => ({ resource: doc('doc-1') })),
    });
    expect(res.status).toBe(200);
    expect((res.body as { evaluations: unknown[] }).evaluations).toEqual(Array.from({ length: 1000 }, () => ({ decision: true })));
  });
});
