import { MemoryBackend } from '../../src/index.js';
import { storeContract } from './contract.js';

storeContract('memory', async () => new MemoryBackend());
