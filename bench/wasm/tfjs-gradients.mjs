// Registers tfjs-core's gradients (the tfjs umbrella package imports register_all_gradients;
// tfjs-core alone registers none). That file is an ES module with extensionless relative
// imports, which Node's resolver refuses: a resolve hook retries them with `.js`, then
// `/index.js`, inside tfjs-core's dist/ only. The registry is global (tfjs keeps it on globalThis), so the
// gradients serve the CommonJS build the backend runs on too.
import { register } from 'node:module';

const hook = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (!context.parentURL?.includes('/@tensorflow/tfjs-core/dist/')) throw e;
    if (e.code !== 'ERR_MODULE_NOT_FOUND' && e.code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw e;
    try {
      return await next(specifier + '.js', context);
    } catch {
      return next(specifier + '/index.js', context);
    }
  }
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
