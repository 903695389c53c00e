import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/tmp.js';

afterAll(removeTempDirs);
