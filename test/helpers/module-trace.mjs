// `node --import ./module-trace.mjs`: appends every module URL the process resolves to $NIGHTSHIFT_MODULE_TRACE.
import { register } from 'node:module';

if (process.env.NIGHTSHIFT_MODULE_TRACE) register('./module-trace-hooks.mjs', import.meta.url);
