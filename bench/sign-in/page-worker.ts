// The page load (./page-load.ts) in a child process (../child-load.ts), as bench/load-worker.ts does for autocannon.
// One load at a time.
import { serveLoad, startLoadChild } from '../child-load.ts';
import { pageLoad, type PageLoadOptions, type PageLoadResult } from './page-load.ts';

const FLAG = '--page-worker';
serveLoad(FLAG, pageLoad);

export const startPageWorker = () => startLoadChild<PageLoadOptions, PageLoadResult>(import.meta.url, FLAG);
