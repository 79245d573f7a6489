// Types of api.js: the binding half of the API, declared with the rest in poslab.d.ts.
export { bindPosLab } from './poslab';
