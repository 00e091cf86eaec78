// The hash that pins an MCP server's tool manifest, shared by verification (the trust store) and runtime events.
// What is hashed: the `tools` array of the server's tools/list answer — every page's `tools`, concatenated in the
// order the server sent them — as RFC 8785 (JCS) canonical JSON, UTF-8, SHA-256: `sha256:<64 lowercase hex>`.
// The rest of the result (`nextCursor`, `_meta`) is left out: it depends on paging, not on what the server exposes.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export const MANIFEST_HASH = /^sha256:[0-9a-f]{64}$/;

/** `sha256:<hex>` of the RFC 8785 canonical JSON of `tools` (tools/list's `tools`, all pages, in order). */
export function manifestHash(tools: readonly unknown[]): string {
  const canonical = canonicalize(tools);
  if (canonical === undefined) throw new TypeError('the tool manifest cannot be canonicalized');
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

/**
 * MCP tool names (specification 2025-11-25, "Tool names"): 1–128 characters of A–Z, a–z, 0–9, `_`, `-` and `.`,
 * case-sensitive, no spaces.
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
