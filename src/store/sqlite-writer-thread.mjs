// Starts the writer thread: worker threads do not inherit the TypeScript loader of the main thread, so this plain
// module registers it and loads the thread's code.
import { register } from 'tsx/esm/api';

register();
await import('./sqlite-writer-thread.ts');
