// An environment's forms (environment-settings scope): save (create, edit a draft, publish numbered versions), list,
// read, delete; a key taken is a 409, even for two creates at once; the events and audit entries of each save.
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

const ctx = environmentPerTest();
const stamp = expect.stringMatching(/Z$/);

const call = async (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object, token = ctx.token) => {
  const res = await ctx.t.app.inject({ method, url: `${ctx.base}${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
};
const eventsOf = async (prefix: string) =>
  (await tenantEvents(ctx.t, ctx.tenantId, { environmentId: ctx.environmentId })).filter((e) => e.type.startsWith(prefix)).map((e) => [e.type, e.data]);

const COMPANY = { name: 'company', type: 'text', label: { en: 'Company', de: 'Firma', fr: 'Entreprise' }, required: true };
const ROLE = { name: 'role', type: 'select', label: 'Role', required: false, options: ['dev', { value: 'ops', label: 'Operations' }] };
const definition = (...fields: object[]) => ({ fields });

describe('forms', () => {
  it('creates a draft at version 1, edits it in place, publishes it, and opens version 2 as a draft while 1 stays published', async () => {
    const write = await ctx.t.token('environment-settings:write');
    const created = await call('POST', '/forms', { name: 'Sign-up extras', key: 'signup_extra', definition: definition(COMPANY) }, write);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.form;
    expect(form).toEqual({
      id: expect.any(String),
      environmentId: ctx.environmentId,
      name: 'Sign-up extras',
      key: 'signup_extra',
      status: 'draft',
      definition: definition(COMPANY),
      version: 1,
      publishedVersion: null,
      createdAt: stamp,
      updatedAt: stamp,
    });

    const edited = await call('POST', '/forms', { id: form.id, name: 'Sign-up extras', key: 'signup_extra', definition: definition(COMPANY, ROLE) });
    expect(edited).toMatchObject({ status: 200, body: { form: { status: 'draft', version: 1, publishedVersion: null } } });
    const published = await call('POST', '/forms', {
      id: form.id,
      name: 'Sign-up extras',
      key: 'signup_extra',
      definition: definition(COMPANY, ROLE),
      status: 'published',
    });
    expect(published).toMatchObject({ status: 200, body: { form: { status: 'published', version: 1, publishedVersion: 1 } } });
    // Publishing it again unchanged freezes nothing new.
    const again = await call('POST', '/forms', {
      id: form.id,
      name: 'Sign-up extras',
      key: 'signup_extra',
      definition: definition(COMPANY, ROLE),
      status: 'published',
    });
    expect(again).toMatchObject({ status: 200, body: { form: { status: 'published', version: 1, publishedVersion: 1 } } });

    const draft = await call('POST', '/forms', { id: form.id, name: 'Sign-up extras', key: 'signup_extra', definition: definition(ROLE) });
    expect(draft).toMatchObject({ status: 200, body: { form: { status: 'draft', version: 2, publishedVersion: 1, definition: definition(ROLE) } } });
    const read = await call('GET', `/forms/${form.id}`, undefined, await ctx.t.token('environment-settings:read'));
    expect(read).toEqual({ status: 200, body: { form: draft.body.form } });
    const second = await call('POST', '/forms', { id: form.id, name: 'Extras', key: 'signup_extra', definition: definition(ROLE), status: 'published' });
    expect(second).toMatchObject({ status: 200, body: { form: { status: 'published', version: 2, publishedVersion: 2, name: 'Extras' } } });
    // A published form saved with changes and `published` at once goes straight to the next version.
    const third = await call('POST', '/forms', { id: form.id, name: 'Extras', key: 'signup_extra', definition: definition(COMPANY), status: 'published' });
    expect(third).toMatchObject({ status: 200, body: { form: { status: 'published', version: 3, publishedVersion: 3 } } });

    const versions = await call('GET', `/forms/${form.id}/versions`);
    expect(versions.body.versions.map((v: { version: number; name: string; definition: object }) => [v.version, v.name, v.definition])).toEqual([
      [3, 'Extras', definition(COMPANY)],
      [2, 'Extras', definition(ROLE)],
      [1, 'Sign-up extras', definition(COMPANY, ROLE)],
    ]);

    const events = await eventsOf('form.');
    expect(
      events.map(([type, data]) => [
        type,
        (data as { form: { version: number; status: string } }).form.version,
        (data as { form: { status: string } }).form.status,
      ]),
    ).toEqual([
      ['form.saved', 1, 'draft'],
      ['form.saved', 1, 'draft'],
      ['form.saved', 1, 'published'],
      ['form.published', 1, 'published'],
      ['form.saved', 1, 'published'],
      ['form.saved', 2, 'draft'],
      ['form.saved', 2, 'published'],
      ['form.published', 2, 'published'],
      ['form.saved', 3, 'published'],
      ['form.published', 3, 'published'],
    ]);
    expect(events[0]![1]).toEqual({ form, created: true });
    expect(events[3]![1]).toEqual({ form: published.body.form, version: 1 });
    const audit = await auditEntries(ctx.t, { tenantId: ctx.tenantId }, { resourceId: form.id });
    expect(audit.map((a) => a.action)).toEqual([
      'form.create',
      'form.update',
      'form.update',
      'form.publish',
      'form.update',
      'form.update',
      'form.update',
      'form.publish',
      'form.update',
      'form.publish',
    ]);
  });

  it('lists forms a page at a time, by status or key; deletes a form; 404 for an unknown one', async () => {
    const ids: string[] = [];
    for (const [key, status] of [
      ['a_form', 'draft'],
      ['b_form', 'published'],
      ['c_form', 'published'],
    ] as const) {
      ids.push((await call('POST', '/forms', { name: key, key, definition: definition(COMPANY), status })).body.form.id);
    }
    const first = await call('GET', '/forms?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.body.forms.map((f: { key: string }) => f.key)).toEqual(['a_form', 'b_form']);
    const next = await call('GET', `/forms?limit=2&cursor=${first.body.nextCursor}`);
    expect(next.body).toMatchObject({ forms: [{ key: 'c_form' }], total: 3, hasMore: false, nextCursor: null });
    expect((await call('GET', '/forms?status=published')).body.forms.map((f: { key: string }) => f.key)).toEqual(['b_form', 'c_form']);
    expect((await call('GET', '/forms?key=c_form')).body).toMatchObject({ forms: [{ id: ids[2] }], total: 1 });

    expect(await call('DELETE', `/forms/${ids[0]}`)).toEqual({ status: 200, body: { success: true } });
    expect((await call('GET', `/forms/${ids[0]}`)).body).toMatchObject({ code: 'form.not_found' });
    expect((await call('DELETE', `/forms/${ids[0]}`)).status).toBe(404);
    const unknown = crypto.randomUUID();
    expect(await call('POST', '/forms', { id: unknown, name: 'x', key: 'x', definition: definition(COMPANY) })).toMatchObject({
      status: 404,
      body: { code: 'form.not_found', error: `No form with id ${unknown}.` },
    });
    expect((await eventsOf('form.deleted')).map(([, data]) => (data as { form: { id: string } }).form.id)).toEqual([ids[0]]);
  });

  it('refuses a key another form of the environment has (409), also for two creates at once; another environment may use it', async () => {
    const body = { name: 'One', key: 'profile', definition: definition(COMPANY) };
    const answers = await Promise.all([call('POST', '/forms', body), call('POST', '/forms', body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toMatchObject({
      code: 'form.key_taken',
      error: 'Conflict: body.key profile is already the key of another form in this environment.',
      details: [{ path: 'body.key' }],
    });
    const other = (await call('POST', '/forms', { ...body, key: 'other' })).body.form;
    expect((await call('POST', '/forms', { ...body, id: other.id })).status).toBe(409);
    expect((await call('GET', '/forms')).body.total).toBe(2);
    expect((await eventsOf('form.saved')).length).toBe(2);
  });

  it('is 404 in an environment of another organization, and needs the environment-settings scope', async () => {
    const form = (await call('POST', '/forms', { name: 'One', key: 'one', definition: definition(COMPANY) })).body.form;
    const { token } = await otherOrganization(ctx.t);
    expect(await call('GET', `/forms/${form.id}`, undefined, token)).toMatchObject({ status: 404, body: { code: 'tenant.not_found' } });
    expect((await call('GET', '/forms', undefined, await ctx.t.token('directory:read'))).status).toBe(403);
    const reader = await ctx.t.token('environment-settings:read');
    expect((await call('POST', '/forms', { name: 'Two', key: 'two', definition: definition(COMPANY) }, reader)).status).toBe(403);
  });
});

describe('form attachments', () => {
  it('attaches a form to a hook point, changes it on a second save, lists and detaches it; a form attached is not deleted', async () => {
    const form = (await call('POST', '/forms', { name: 'One', key: 'one', definition: definition(COMPANY) })).body.form;
    const attached = await call('POST', '/form-attachments', { formId: form.id, hookType: 'pre_signup' }, await ctx.t.token('environment-settings:write'));
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    const attachment = attached.body.attachment;
    expect(attachment).toEqual({
      id: expect.any(String),
      environmentId: ctx.environmentId,
      formId: form.id,
      hookType: 'pre_signup',
      enabled: true,
      rank: 0,
      createdAt: stamp,
      updatedAt: stamp,
    });
    const changed = await call('POST', '/form-attachments', { formId: form.id, hookType: 'pre_signup', rank: 5, enabled: false });
    expect(changed).toMatchObject({ status: 200, body: { attachment: { id: attachment.id, rank: 5, enabled: false } } });
    const kept = await call('POST', '/form-attachments', { formId: form.id, hookType: 'pre_signup', enabled: true });
    expect(kept).toMatchObject({ status: 200, body: { attachment: { id: attachment.id, rank: 5, enabled: true } } });
    const later = (await call('POST', '/form-attachments', { formId: form.id, hookType: 'post_signin', rank: 1 })).body.attachment;

    const listed = await call('GET', '/form-attachments', undefined, await ctx.t.token('environment-settings:read'));
    expect(listed).toEqual({ status: 200, body: { attachments: [later, kept.body.attachment] } });
    expect((await call('GET', '/form-attachments?hookType=pre_signup')).body.attachments).toEqual([kept.body.attachment]);

    const refused = await call('DELETE', `/forms/${form.id}`);
    expect(refused).toMatchObject({
      status: 409,
      body: {
        code: 'form.attached',
        error: `The form is attached to post_signin (attachment ${later.id}), pre_signup (attachment ${attachment.id}): detach it before deleting it.`,
        details: [
          { path: `attachments.${later.id}`, message: 'attached to post_signin' },
          { path: `attachments.${attachment.id}`, message: 'attached to pre_signup' },
        ],
      },
    });
    expect(await call('DELETE', `/form-attachments/${attachment.id}`)).toEqual({ status: 200, body: { success: true } });
    expect(await call('DELETE', `/form-attachments/${attachment.id}`)).toMatchObject({ status: 404, body: { code: 'form_attachment.not_found' } });
    expect(await call('DELETE', `/form-attachments/${later.id}`)).toMatchObject({ status: 200 });
    expect((await call('DELETE', `/forms/${form.id}`)).status).toBe(200);

    expect((await eventsOf('form_attachment.')).map(([type, data]) => [type, (data as { created?: boolean }).created])).toEqual([
      ['form_attachment.saved', true],
      ['form_attachment.saved', false],
      ['form_attachment.saved', false],
      ['form_attachment.saved', true],
      ['form_attachment.deleted', undefined],
      ['form_attachment.deleted', undefined],
    ]);
  });

  it('refuses a form of another environment, an unknown hook type and a missing form id, naming the field', async () => {
    const sibling = (await newEnvironments(ctx.t, ctx.token)).environmentIds[0]!;
    const elsewhere = await ctx.t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${ctx.tenantId}/environments/${sibling}/forms`,
      headers: bearer(ctx.token),
      payload: { name: 'Elsewhere', key: 'elsewhere', definition: definition(COMPANY) },
    });
    expect(elsewhere.statusCode).toBe(201);
    expect(await call('POST', '/form-attachments', { formId: elsewhere.json().form.id, hookType: 'pre_signup' })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'body.formId', message: 'is not a form of this environment' }] },
    });
    expect(await call('POST', '/form-attachments', { formId: elsewhere.json().form.id, hookType: 'on_login' })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'body.hookType' }] },
    });
    expect(await call('POST', '/form-attachments', { hookType: 'pre_signup' })).toMatchObject({
      status: 400,
      body: { details: [{ path: 'body.formId', message: 'is required' }] },
    });
  });
});

describe('a form definition', () => {
  const field = (extra: object) => ({ name: 'f', type: 'text', label: 'F', ...extra });
  it.each([
    [definition(COMPANY, ROLE, field({ type: 'color' })), 'body.definition.fields.2.type'],
    [definition(field({ name: 'Company' })), 'body.definition.fields.0.name'],
    [definition(field({}), field({ label: 'Again' })), 'body.definition.fields.1.name'],
    [definition(field({ label: { de: 'Nur deutsch' } })), 'body.definition.fields.0.label'],
    [definition(field({ type: 'select' })), 'body.definition.fields.0.options'],
    [definition(field({ options: ['a'] })), 'body.definition.fields.0.options'],
    [definition(field({ type: 'select', options: ['a', { value: 'a', label: 'A' }] })), 'body.definition.fields.0.options.1'],
    [definition(field({ validation: { pattern: '(a+)\\1' } })), 'body.definition.fields.0.validation.pattern'],
    [definition(field({ validation: { pattern: 'a{1000}' } })), 'body.definition.fields.0.validation.pattern'],
    [definition(field({ type: 'number', validation: { min: '2020-01-01' } })), 'body.definition.fields.0.validation.min'],
    [definition(field({ type: 'boolean', validation: { maxLength: 3 } })), 'body.definition.fields.0.validation.maxLength'],
    [definition(field({ placeholder: 'x' })), 'body.definition.fields.0.placeholder'],
    [definition(...Array.from({ length: 51 }, (_, i) => field({ name: `f${i}` }))), 'body.definition.fields'],
    [{ fields: [] }, 'body.definition.fields'],
    [{}, 'body.definition.fields'],
  ])('%j is refused naming %s', async (bad, path) => {
    const res = await call('POST', '/forms', { name: 'Bad', key: 'bad', definition: bad });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('request.invalid');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a bad key, name or status naming the field, and stores nothing', async () => {
    for (const [payload, path] of [
      [{ name: 'x', key: 'Bad-Key', definition: definition(COMPANY) }, 'body.key'],
      [{ name: 'x', definition: definition(COMPANY) }, 'body.key'],
      [{ name: '  ', key: 'k', definition: definition(COMPANY) }, 'body.name'],
      [{ name: 'x', key: 'k', definition: definition(COMPANY), status: 'live' }, 'body.status'],
      [{ name: 'x', key: 'k' }, 'body.definition'],
    ] as const) {
      const res = await call('POST', '/forms', payload);
      expect(res, JSON.stringify(payload)).toMatchObject({ status: 400, body: { details: [{ path }] } });
    }
    expect((await call('GET', '/forms')).body.total).toBe(0);
  });
});
