import { MemoryStore } from '../../src/index.js';
import { storeContract } from './contract.js';

storeContract('memory', async () => new MemoryStore());
