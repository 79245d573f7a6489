// The core's model-type table on the page (state/model-types.js, generated from
// cpp/include/poslab/models/model_types.hpp): what a config.json model_type's layers and bases
// are, read from the rows the runtime and the RoPE inspector read, not restated here.
import { MODEL_TYPES } from '../state/model-types.js';

const ROWS = new Map(MODEL_TYPES.map((row) => [row.name, row]));

/** The table's row for config.json's model_type, or undefined (GPT-2 has none: it does not rotate). */
export const modelTypeRow = (type) => ROWS.get(type);

/**
 * Whether the type's sliding layers turn at a base of their own (rope_local_base_freq: local)
 * and the others at rope_theta (global), as Gemma 3's do.
 */
export const hasLocalBase = (type) => (ROWS.get(type)?.rotation.localBase ?? 0) > 0;

/**
 * The layers a config marks NoPE (no rotation of q and k), as indices: 0s of no_rope_layers,
 * which the core reports for smollm3 (1 rotates, 0 does not); [] for every other model.
 */
export const nopeLayers = (c) => (c?.no_rope_layers ?? []).flatMap((rotates, i) => (rotates ? [] : [i]));
