#ifndef STREAM_CVOAACENC_SHIM_H
#define STREAM_CVOAACENC_SHIM_H
#include <vo-aacenc/voAAC.h>
#include <vo-aacenc/cmnMemory.h>

/* VO_PID_AAC_ENCPARAM is an expression macro (module | 0x40). */
static inline VO_S32 stream_vo_aac_encparam(void) { return VO_PID_AAC_ENCPARAM; }

/* Init needs a memory operator that outlives the handle (the encoder keeps the pointer): the library's own
   malloc-based functions, in static storage. */
static inline VO_U32 stream_vo_aac_init(VO_AUDIO_CODECAPI *api, VO_HANDLE *handle) {
    static VO_MEM_OPERATOR memory = { cmnMemAlloc, cmnMemFree, cmnMemSet, cmnMemCopy, cmnMemCheck, cmnMemCompare,
                                      cmnMemMove };
    VO_CODEC_INIT_USERDATA user = { VO_IMF_USERMEMOPERATOR, &memory };
    return api->Init(handle, VO_AUDIO_CodingAAC, &user);
}
#endif
