// The attempt load (./attempt-load.ts) in a child process (../child-load.ts). One load at a time.
import { serveLoad, startLoadChild } from '../child-load.ts';
import { attemptLoad, type AttemptLoadOptions, type AttemptLoadResult } from './attempt-load.ts';

const FLAG = '--attempt-worker';
serveLoad(FLAG, attemptLoad);

export const startAttemptWorker = () => startLoadChild<AttemptLoadOptions, AttemptLoadResult>(import.meta.url, FLAG);
