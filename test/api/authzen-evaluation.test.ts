// POST /access/v1/evaluation: decisions from the environment's model, explanations on request, and the 400s the
// AuthZEN certification scenario expects for malformed requests.
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

const ask = (subject: string, action: string, resource: string, extra: object = {}) =>
  pdp.post('evaluation', { subject: { type: 'user', id: subject }, action: { name: action }, resource: { type: 'document', id: resource }, ...extra });

describe('POST /access/v1/evaluation', () => {
  it.each([
    ['alice', 'read', 'doc-1', true], // a role assigned to the user
    ['alice', 'write', 'doc-1', false], // no role grants it
    ['bob', 'write', 'doc-2', true], // through a group, on the instance the grant is limited to
    ['bob', 'read', 'doc-2', true], // editor inherits viewer
    ['bob', 'read', 'doc-1', false], // outside the grant's instances
    ['alice', 'delete', 'doc-1', true], // the permission's condition holds (alice owns doc-1)
    ['alice', 'delete', 'doc-2', false], // … and not on bob's
    ['carol', 'read', 'doc-3', false], // inactive
    ['nobody', 'read', 'doc-1', false], // unknown subject
    ['alice', 'read', 'doc-404', false], // unknown resource
    ['ALICE', 'read', 'doc-1', true], // by userName, case-insensitively
    ['ext-alice', 'read', 'doc-1', true], // by externalId
  ])('%s %s %s → %s', async (subject, action, resource, decision) => {
    const res = await ask(subject, action, resource);
    expect(res).toMatchObject({ status: 200, body: { decision } });
    expect(res.body).toEqual({ decision }); // no context without options.explain
  });

  it('resolves a user by its id and accepts the `identity` type', async () => {
    const res = await pdp.post('evaluation', {
      subject: { type: 'identity', id: pdp.ids.users.alice },
      action: { name: 'read' },
      resource: { type: 'document', id: 'doc-1' },
    });
    expect(res).toMatchObject({ status: 200, body: { decision: true } });
  });

  it('explains a permit and a deny with options.explain', async () => {
    const permit = await ask('alice', 'read', 'doc-1', { options: { explain: true } });
    expect(permit.body).toEqual({
      decision: true,
      context: {
        reason: {
          permitted: true,
          role: 'viewer',
          assignedRole: 'viewer',
          assignmentId: pdp.ids.assignments[0],
          via: { type: 'user', id: pdp.ids.users.alice },
          permission: 'document:read',
          conditions: [],
        },
      },
    });
    const deny = await ask('bob', 'read', 'doc-1', { options: { explain: true } });
    expect(deny.body).toEqual({ decision: false, context: { reason: expect.objectContaining({ permitted: false, code: 'no_permission' }) } });
  });

  it('ignores unknown fields and accepts null properties and context', async () => {
    const res = await pdp.post('evaluation', {
      subject: { type: 'user', id: 'alice', properties: null, extra: 1 },
      action: { name: 'read', properties: { soft: null } },
      resource: { type: 'document', id: 'doc-1', properties: {} },
      context: null,
      whatever: { nested: true },
    });
    expect(res).toMatchObject({ status: 200, body: { decision: true } });
  });

  const valid = { subject: { type: 'user', id: 'alice' }, action: { name: 'read' }, resource: { type: 'document', id: 'doc-1' } };
  it.each([
    ['a missing subject', { action: valid.action, resource: valid.resource }, 'body.subject'],
    ['a missing action', { subject: valid.subject, resource: valid.resource }, 'body.action'],
    ['a missing resource', { subject: valid.subject, action: valid.action }, 'body.resource'],
    ['a missing subject type', { ...valid, subject: { id: 'alice' } }, 'body.subject.type'],
    ['an empty subject id', { ...valid, subject: { type: 'user', id: '' } }, 'body.subject.id'],
    ['a missing action name', { ...valid, action: {} }, 'body.action.name'],
    ['a string subject', { ...valid, subject: 'alice' }, 'body.subject'],
    ['a numeric id', { ...valid, resource: { type: 'document', id: 5 } }, 'body.resource.id'],
    ['array properties', { ...valid, subject: { ...valid.subject, properties: [] } }, 'body.subject.properties'],
    ['an array context', { ...valid, context: [] }, 'body.context'],
  ])('400 for %s', async (_what, body, path) => {
    const res = await pdp.post('evaluation', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'request.invalid', requestId: expect.any(String), details: [expect.objectContaining({ path })] });
  });

  it('says what is wrong with a field', async () => {
    const res = await pdp.post('evaluation', { subject: 'alice', action: {}, resource: { type: 'document', id: 5 } });
    expect(res.body).toMatchObject({
      details: [
        { path: 'body.subject', message: 'must be a JSON object' },
        { path: 'body.action.name', message: 'is required' },
        { path: 'body.resource.id', message: 'must be a string' },
      ],
    });
  });

  it.each([
    ['malformed JSON', '{"subject":', 'request.malformed_json'],
    ['an empty body', '', 'request.invalid'],
    ['a JSON array', '[]', 'request.invalid'],
  ])('400 for %s', async (_what, payload, code) => {
    const res = await pdp.post('evaluation', payload);
    expect(res).toMatchObject({ status: 400, body: { code, error: expect.any(String), requestId: expect.any(String) } });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('400 for Content-Type %s', async (type) => {
    const res = await pdp.post('evaluation', JSON.stringify(valid), { 'content-type': type });
    expect(res).toMatchObject({ status: 400, body: { code: 'request.unsupported_media_type', requestId: expect.any(String) } });
  });

  it('accepts application/json with a charset', async () => {
    const res = await pdp.post('evaluation', valid, { 'content-type': 'application/json; charset=utf-8' });
    expect(res).toMatchObject({ status: 200, body: { decision: true } });
  });
});
