/** logbook's version, from its package.json. */
export { packageVersion } from '../store/package-version.js';
