// GET /.well-known/authzen-configuration: the PDP metadata, public, absolute URLs from PUBLIC_BASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: 'https://iam.example.com/' });
});
afterAll(() => t?.close());

describe('GET /.well-known/authzen-configuration', () => {
  it('publishes every endpoint as an absolute URL, without a secret', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/authzen-configuration' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      policy_decision_point: 'https://iam.example.com',
      access_evaluation_endpoint: 'https://iam.example.com/access/v1/evaluation',
      access_evaluations_endpoint: 'https://iam.example.com/access/v1/evaluations',
      search_subject_endpoint: 'https://iam.example.com/access/v1/search/subject',
      search_resource_endpoint: 'https://iam.example.com/access/v1/search/resource',
      search_action_endpoint: 'https://iam.example.com/access/v1/search/action',
    });
  });
});
