// The IdP metadata of SAML connections configured by `metadataUrl`, cached per connection on this instance so a
// sign-in does not fetch it at its start and again at its response. An entry lives until the metadata's own
// `cacheDuration` or `validUntil` (the sooner; at most a day), else an hour; it belongs to the connection as it was
// saved (its URL and `updatedAt`), so saving the connection invalidates it on every instance. `refetch` reads the URL
// again when a response's signature does not verify with the cached certificate (the IdP rolled its key over), at
// most once a minute per connection. At most MAX_ENTRIES connections are kept (the least recently used go first).
import { xmldom } from '../../lib/sso/xmldom.ts';
import { fetchDocument } from '../../lib/outbound/fetch-document.ts';
import { METADATA_MAX_BYTES, METADATA_TIMEOUT_MS, parseIdpMetadata, resolveIdpMetadata } from '../families/projects/environment-settings/saml-metadata.ts';
import type { SamlIdpMetadata } from '../families/projects/environment-settings/schemas.ts';
import type { SsoConnection } from './connections.ts';

export const DEFAULT_TTL_MS = 60 * 60_000;
export const MAX_TTL_MS = 24 * 60 * 60_000;
export const REFETCH_FLOOR_MS = 60_000;
export const MAX_ENTRIES = 1000;

/** The metadata URL could not be read (network, status, size, SSRF guard) or did not hold usable IdP metadata. */
export class MetadataUnavailable extends Error {}

interface Entry {
  version: string;
  metadata: SamlIdpMetadata;
  expiresAt: number;
  /** When `refetch` last read the URL for this connection. */
  refetchedAt: number | null;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** An xsd:duration (PnYnMnDTnHnMnS) in ms; null when it is not one. Months and years count 30 and 365 days. */
export function durationMs(value: string): number | null {
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m || value.trim() === 'P' || value.trim().endsWith('T')) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  return ((((y * 365 + mo * 30 + d) * 24 + h) * 60 + mi) * 60 + s) * 1000;
}

/** Until when metadata fetched at `now` may be used: its root's cacheDuration and validUntil, else DEFAULT_TTL_MS. */
export function expiryOf(xml: string, now: number): number {
  const { DOMParser } = xmldom();
  const root = new DOMParser({ onError: () => undefined }).parseFromString(xml, 'application/xml').documentElement;
  const cacheDuration = root?.getAttribute('cacheDuration');
  const validUntil = Date.parse(root?.getAttribute('validUntil') ?? '');
  const ttl = cacheDuration ? (durationMs(cacheDuration) ?? DEFAULT_TTL_MS) : DEFAULT_TTL_MS;
  return Math.min(now + Math.min(ttl, MAX_TTL_MS), Number.isNaN(validUntil) ? Infinity : validUntil);
}

export function createIdpMetadataCache(options: { allowPrivate: boolean; now?: () => number }) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  async function fetchInto(c: SsoConnection, url: string, version: string, refetchedAt: number | null = null): Promise<Entry> {
    const fetched = await fetchDocument(url, {
      timeoutMs: METADATA_TIMEOUT_MS,
      maxBytes: METADATA_MAX_BYTES,
      allowPrivate: options.allowPrivate,
      accept: 'application/samlmetadata+xml, application/xml, text/xml;q=0.9, */*;q=0.1',
    });
    if (!fetched.ok) throw new MetadataUnavailable(`the IdP metadata at ${url} could not be fetched: ${fetched.error}`);
    let metadata: SamlIdpMetadata;
    try {
      metadata = parseIdpMetadata(fetched.body);
    } catch (error) {
      throw new MetadataUnavailable(`the document at ${url} ${(error as Error).message}`);
    }
    const entry = { version, metadata, expiresAt: expiryOf(fetched.body, now()), refetchedAt };
    entries.delete(c.id);
    entries.set(c.id, entry);
    while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    return entry;
  }

  const versionOf = (c: SsoConnection, url: string) => `${url}\n${c.updatedAt ?? ''}`;

  return {
    /** The connection's IdP metadata: inline XML parsed, a URL's from the cache while fresh, else fetched. */
    async get(c: SsoConnection): Promise<SamlIdpMetadata> {
      const url = text(c.config.metadataUrl);
      if (url === undefined) return resolveIdpMetadata({ metadataXml: text(c.config.metadataXml) }, { allowPrivate: options.allowPrivate });
      const version = versionOf(c, url);
      const cached = entries.get(c.id);
      if (cached && cached.version === version && cached.expiresAt > now()) {
        entries.delete(c.id);
        entries.set(c.id, cached);
        return cached.metadata;
      }
      return (await fetchInto(c, url, version)).metadata;
    },

    /**
     * Fetches a URL connection's metadata again after its certificate failed to verify a response: the new metadata
     * when its signing certificate changed, else null (nothing to retry with; also when the last such refetch was less
     * than REFETCH_FLOOR_MS ago, so refused responses cannot make the service hammer the IdP).
     */
    async refetch(c: SsoConnection, failed: SamlIdpMetadata): Promise<SamlIdpMetadata | null> {
      const url = text(c.config.metadataUrl);
      if (url === undefined) return null;
      const cached = entries.get(c.id);
      if (cached && cached.metadata.idpX509Cert !== failed.idpX509Cert) return cached.metadata;
      if (cached?.refetchedAt != null && now() - cached.refetchedAt < REFETCH_FLOOR_MS) return null;
      const entry = await fetchInto(c, url, versionOf(c, url), now());
      return entry.metadata.idpX509Cert === failed.idpX509Cert ? null : entry.metadata;
    },
  };
}

export type IdpMetadataCache = ReturnType<typeof createIdpMetadataCache>;
