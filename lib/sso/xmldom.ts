// @xmldom/xmldom (SAML metadata, read and written) is loaded by its first use and kept: about 1 MB of heap that an
// instance without SAML connections never needs. Its callers are synchronous, hence require() rather than import().
import { createRequire } from 'node:module';
import type * as XmlDom from '@xmldom/xmldom';

let loaded: typeof XmlDom | undefined;
export const xmldom = () => (loaded ??= createRequire(import.meta.url)('@xmldom/xmldom') as typeof XmlDom);
