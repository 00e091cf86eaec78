// Child process of bench/scim.ts: creates COUNT users through POST /v1/scim/v2/Users with CONCURRENCY requests in
// flight, so the client never shares the event loop it measures; prints `{ ms, failures }` as its last line.
const [url, token, count, concurrency] = process.argv.slice(2) as [string, string, string, string];
const total = Number(count);
let next = 0;
let failures = 0;
const started = performance.now();
async function worker() {
  while (next < total) {
    const i = next++;
    const res = await fetch(`${url}/v1/scim/v2/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
        userName: `created${i}@bench.example`,
        externalId: `ext-${i}`,
        name: { givenName: 'Bench', familyName: `User ${i}` },
        emails: [{ value: `created${i}@bench.example`, type: 'work', primary: true }],
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Bench', employeeNumber: String(i) },
      }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) failures++;
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ ms: performance.now() - started, failures }));
