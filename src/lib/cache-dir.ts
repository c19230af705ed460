import os from 'node:os';
import path from 'node:path';

/** Where built engines, fetched servers and tool environments are kept between runs, outside the repository. */
export const CACHE_DIR = process.env.CACHE_DIR ?? path.join(os.homedir(), '.cache', 'lead-service');
export const BIN_DIR = path.join(CACHE_DIR, 'bin');
