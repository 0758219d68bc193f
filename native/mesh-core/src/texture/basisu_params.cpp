// Encoder parameters the basis-universal crate's C wrapper (vendor/encoding_wrapper.cpp in
// basis-universal-sys) does not expose. Its CompressorParams handle is a struct holding one
// pointer to basisu's parameter block; it is redeclared here with that same layout.
#include "encoder/basisu_comp.h"

struct CompressorParams {
    basisu::basis_compressor_params* pParams;
};

extern "C" {

// Candidate blocks the UASTC rate-distortion pass searches back through (basisu's default 4096).
// The pass's time grows with it; a smaller window gives up a little of the Zstandard gain.
void kiln_basisu_set_rdo_uastc_dict_size(CompressorParams* params, unsigned size) {
    params->pParams->m_rdo_uastc_dict_size = static_cast<int>(size);
}

// ETC1S effort 0-5 (basisu's default 2): lower is faster with slightly larger or worse output.
void kiln_basisu_set_etc1s_compression_level(CompressorParams* params, int level) {
    params->pParams->m_compression_level = level;
}
}
