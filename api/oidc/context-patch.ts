// oidc-provider 9 gives each request its `ctx.oidc` by defining an accessor on that request's Koa context with a
// getter made for it (`ensureOIDC` in lib/helpers/initialize_app.js). V8 allocates every accessor's getter/setter pair
// in the old generation, so each finished request stayed reachable from there until the next full collection: under
// load every young-generation collection copied and promoted whole requests (request, response, Koa and
// oidc-provider contexts, about 11 KB each). At 1 500 introspections/s that meant collections of 7–12 ms instead of
// 2–3 ms and an old generation growing 16 MB/s (docs/benchmarks.md, bench:oidc). A Koa app defining the same
// per-request accessor shows it alone; one defining a shared getter does not.
//
// This load hook rewrites that function as the library loads: one accessor, defined once on the Provider's Koa
// context prototype (the Provider is its own Koa app), keeps the request's OIDCContext under a symbol, created on
// first use as before, and only for a request that went through `ensureOIDC` (before it, `ctx.oidc` is undefined, as
// before). If the text no longer matches (an oidc-provider update), the library loads unchanged and
// `oidcProviderContextPatch()` says `unmatched`; test/api/oidc-provider-tokens.test.ts fails then, as it does if the
// library was loaded before the hook. Registered by ./providers.ts before it loads the first Provider's modules;
// nothing else in the service loads the library.
import module from 'node:module';

const TARGET = '/node_modules/oidc-provider/lib/helpers/initialize_app.js';

const ORIGINAL = `  const ensureOIDC = async (ctx, next) => {
    let oidcCtx;
    Object.defineProperty(ctx, 'oidc', {
      get: () => {
        oidcCtx ||= new this.OIDCContext(ctx);
        return oidcCtx;
      },
    });
    return als.run(ctx, () => next());
  };`;

const PATCHED = `  const provider = this;
  const oidcContext = Symbol('oidc context');
  const ensured = Symbol('oidc ensured');
  Object.defineProperty(this.context, 'oidc', {
    get() {
      if (!this[ensured]) return undefined;
      this[oidcContext] ||= new provider.OIDCContext(this);
      return this[oidcContext];
    },
  });
  const ensureOIDC = async (ctx, next) => {
    ctx[ensured] = true;
    return als.run(ctx, () => next());
  };`;

let state: 'not loaded' | 'patched' | 'unmatched' = 'not loaded';
let registered = false;

/** Registers the load hook (once per process); a no-op for a library already loaded. */
export function patchOidcProviderContext(): void {
  if (registered) return;
  registered = true;
  module.registerHooks({
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      if (!url.endsWith(TARGET) || result.source === undefined) return result;
      const source = String(result.source);
      if (!source.includes(ORIGINAL)) {
        state = 'unmatched';
        return result;
      }
      state = 'patched';
      return { ...result, source: source.replace(ORIGINAL, PATCHED) };
    },
  });
}

/** Whether the loaded oidc-provider got the shared accessor. */
export const oidcProviderContextPatch = () => state;
