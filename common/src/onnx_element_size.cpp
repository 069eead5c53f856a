#include "mx/common/onnx_element_size.hpp"

namespace mx::common {

size_t onnx_element_size(int32_t t) {
  switch (t) {
    case 1:   // FLOAT
    case 6:   // INT32
    case 12:  // UINT32
      return 4;
    case 2:   // UINT8
    case 3:   // INT8
    case 9:   // BOOL
    case 17:  // FLOAT8E4M3FN
    case 18:  // FLOAT8E4M3FNUZ
    case 19:  // FLOAT8E5M2
    case 20:  // FLOAT8E5M2FNUZ
    case 24:  // FLOAT8E8M0
      return 1;
    case 4:   // UINT16
    case 5:   // INT16
    case 10:  // FLOAT16
    case 16:  // BFLOAT16
      return 2;
    case 7:   // INT64
    case 11:  // DOUBLE
    case 13:  // UINT64
    case 14:  // COMPLEX64
      return 8;
    case 15:  // COMPLEX128
      return 16;
    default:  // UNDEFINED 0, STRING 8, UINT4/INT4 21/22, FLOAT4E2M1 23, UINT2/INT2 25/26
      return 0;
  }
}

}  // namespace mx::common
