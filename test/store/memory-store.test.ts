import { MemoryBackend } from '../../src/store/memory/memory-store.js';
import { storeContract } from './contract.js';

storeContract('memory', async () => new MemoryBackend());
