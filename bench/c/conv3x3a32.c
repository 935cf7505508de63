#include "conv3x3.h"

CONV3X3_C(c_conv3x3a32, int32_t)
