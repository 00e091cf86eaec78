// The one stylesheet of the sign-in pages, inlined under the page's CSP nonce.
import { html } from './html.ts';

export const STYLE = html`
  body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d2330; margin: 0; } main { max-width: 24rem; margin: 4rem auto; background: #fff;
  padding: 2rem; border-radius: 0.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); } h1 { font-size: 1.4rem; margin-top: 0; } label { display: block; margin: 1rem 0
  0.25rem; font-weight: 600; } input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; } button {
  margin-top: 1.25rem; padding: 0.6rem 1.2rem; font-size: 1rem; cursor: pointer; } .error { color: #a31515; background: #fdecec; padding: 0.5rem; border-radius:
  0.25rem; } .client { display: flex; align-items: center; gap: 0.75rem; } .client img { width: 48px; height: 48px; object-fit: contain; } .links a {
  margin-right: 1rem; } .actions { display: flex; gap: 0.75rem; }
`;
