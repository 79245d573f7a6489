// Everything public in one include.
#pragma once

#include "poslab/alibi.hpp"
#include "poslab/analysis.hpp"
#include "poslab/attention.hpp"
#include "poslab/errors.hpp"
#include "poslab/formulas.hpp"
#include "poslab/gpt2.hpp"
#include "poslab/learned.hpp"
#include "poslab/multihead.hpp"
#include "poslab/norm.hpp"
#include "poslab/npy.hpp"
#include "poslab/random.hpp"
#include "poslab/relative.hpp"
#include "poslab/rope.hpp"
#include "poslab/safetensors.hpp"
#include "poslab/sinusoidal.hpp"
#include "poslab/tensor.hpp"
