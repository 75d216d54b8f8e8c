// Stands in for CUDA's math_constants.h in the host build of the kernels (cudasim.h).
#pragma once
#include "cudasim.h"

#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_INF __builtin_inf()
#define CUDART_NAN __builtin_nan("")
#define CUDART_PI_F 3.141592654f
#define CUDART_LN2_F 0.693147181f
