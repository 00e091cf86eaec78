// `npm run build:workflows`: bundles workflows/temporal.ts into dist/workflows-bundle.js, the prebuilt
// bundle the Temporal worker loads at start (the Dockerfile's worker stage runs this at image build).
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE_PATH, bundleWorkflows } from '../worker/bundle.ts';

const started = Date.now();
const { code } = await bundleWorkflows();
await fs.mkdir(path.dirname(BUNDLE_PATH), { recursive: true });
await fs.writeFile(BUNDLE_PATH, code);
console.log(`workflow bundle written to ${path.relative(process.cwd(), BUNDLE_PATH)} (${Math.round(code.length / 1024)} KiB, ${Date.now() - started} ms)`);
