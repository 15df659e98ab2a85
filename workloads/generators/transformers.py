"""Transformer decoder layers: the attention and feed-forward blocks of the
reference implementation's workload files (accelforge
examples/workloads/transformers/_attention_decode_types and
_feedforward_types), put together per model as its model files do. Each model file holds one decoder layer, for prefill or one decode
step, selected by parameters."""

# ---- Parameters and checks shared by every model ----


def token_parameters(max_tokens, max_help):
    return {
        "batch": {"type": "integer", "default": 1, "min": 1,
                  "help": "sequences processed together (rank B)"},
        "new_tokens": {"type": "integer", "default": 2048, "min": 1,
                       "help": "tokens computed in this step: the prompt in prefill, "
                               "usually 1 in decode (rank M)"},
        "decode": {"type": "bool", "default": False,
                   "help": "one decode step: attention reads a KV cache of cached_tokens "
                           "tokens instead of the freshly computed keys and values"},
        "cached_tokens": {"type": "integer", "min": 1, "required_when": "decode",
                          "help": "tokens already in the KV cache, the attention context "
                                  "in decode (rank P); required when decode"},
        "max_tokens": {"type": "integer", "default": max_tokens, "min": 1,
                       "help": max_help},
    }


def token_checks(when=None):
    def join(cond):
        return cond if when is None else "%s && %s" % (when, cond)
    return [
        {"assert": "new_tokens <= max_tokens", "when": join("!decode"),
         "message": "prefill needs new_tokens <= max_tokens"},
        {"assert": "new_tokens + cached_tokens <= max_tokens", "when": join("decode"),
         "message": "decode needs new_tokens + cached_tokens <= max_tokens"},
    ]


def with_when(entries, cond):
    """Adds @cond to the `when` of every Einsum of a block."""
    if cond is None:
        return entries
    out = []
    for entry in entries:
        if isinstance(entry, str):
            entry = {"einsum": entry}
        entry = dict(entry)
        if "when" in entry:
            entry["when"] = "%s && %s" % (cond, entry["when"])
        else:
            entry["when"] = cond
        # keep "einsum" first, "when" second, for reading
        ordered = {"einsum": entry.pop("einsum"), "when": entry.pop("when")}
        ordered.update(entry)
        out.append(ordered)
    return out


def copy(text):
    return {"einsum": text, "copy": True}


def prefill(text):
    return {"einsum": text, "when": "!decode"}


def decode(text):
    return {"einsum": text, "when": "decode"}


# ---- Attention blocks (accelforge _attention_decode_types) ----

def multi_head():
    return [
        copy("I[b,m,d] = I_in[b,m,d]"),
        "V[b,m,h,e] = I[b,m,d] * WV[h,e,d]",
        "K[b,m,h,e] = I[b,m,d] * WK[h,e,d]",
        "Q[b,m,h,e] = I[b,m,d] * WQ[h,e,d]",
        prefill("QK[b,m,p,h] = Q[b,m,h,e] * K[b,M:p,h,e]"),
        decode("QK[b,m,p,h] = Q[b,m,h,e] * K_cache[b,p,h,e]"),
        "QK_softmax[b,m,p,h] = QK[b,m,p,h]",
        prefill("AV[b,m,h,f] = QK_softmax[b,m,p,h] * V[b,M:p,h,E:f]"),
        decode("AV[b,m,h,f] = QK_softmax[b,m,p,h] * V_cache[b,p,h,E:f]"),
        "Z[b,m,g] = AV[b,m,h,f] * WZ[h,f,g]",
    ]


def grouped_query():
    return [
        copy("I[b,m,d] = I_in[b,m,d]"),
        "V[b,m,hkv,e] = I[b,m,d] * WV[hkv,e,d]",
        "K[b,m,hkv,e] = I[b,m,d] * WK[hkv,e,d]",
        "Q[b,m,hkv,hq,e] = I[b,m,d] * WQ[hkv,hq,e,d]",
        prefill("QK[b,m,p,hkv,hq] = Q[b,m,hkv,hq,e] * K[b,M:p,hkv,e]"),
        decode("QK[b,m,p,hkv,hq] = Q[b,m,hkv,hq,e] * K_cache[b,p,hkv,e]"),
        "QK_softmax[b,m,p,hkv,hq] = QK[b,m,p,hkv,hq]",
        prefill("AV[b,m,hkv,hq,f] = QK_softmax[b,m,p,hkv,hq] * V[b,M:p,hkv,E:f]"),
        decode("AV[b,m,hkv,hq,f] = QK_softmax[b,m,p,hkv,hq] * V_cache[b,p,hkv,E:f]"),
        "Z[b,m,g] = AV[b,m,hkv,hq,f] * WZ[hkv,hq,f,g]",
    ]


def chunked_local():
    # In decode the new token joins the last chunk of the cache; when that
    # chunk is empty (the cache ends on a chunk boundary) the step is a
    # one-token prefill of a new chunk (chunk_decode = 0), as in the
    # reference (its chunked grouped-query attention).
    cached = {"einsum": None, "when": "chunk_decode"}
    fresh = {"einsum": None, "when": "!chunk_decode"}
    return [
        copy("I[b,mc,d,ch] = I_in[b,m,d]"),
        "V[b,mc,hkv,e,ch] = I[b,mc,d,ch] * WV[hkv,e,d]",
        "K[b,mc,hkv,e,ch] = I[b,mc,d,ch] * WK[hkv,e,d]",
        "Q[b,mc,hkv,hq,e,ch] = I[b,mc,d,ch] * WQ[hkv,hq,e,d]",
        dict(fresh, einsum="QK[b,mc,pc,hkv,hq,ch] = Q[b,mc,hkv,hq,e,ch] * K[b,MC:pc,hkv,e,ch]"),
        dict(cached, einsum="QK[b,mc,pc,hkv,hq,ch] = Q[b,mc,hkv,hq,e,ch] * K_cache[b,pc,hkv,e,ch]"),
        "QK_softmax[b,mc,pc,hkv,hq,ch] = QK[b,mc,pc,hkv,hq,ch]",
        dict(fresh, einsum="AV[b,mc,hkv,hq,f,ch] = QK_softmax[b,mc,pc,hkv,hq,ch] * V[b,MC:pc,hkv,E:f,ch]"),
        dict(cached, einsum="AV[b,mc,hkv,hq,f,ch] = QK_softmax[b,mc,pc,hkv,hq,ch] * V_cache[b,pc,hkv,E:f,ch]"),
        "ZC[b,mc,g,ch] = AV[b,mc,hkv,hq,f,ch] * WZ[hkv,hq,f,g]",
        copy("Z[b,m,g] = ZC[b,mc,g,ch]"),
    ]


def multi_head_latent(absorbed):
    ckv = ["CKV[b,M:p,lkv]", "CKV_cache[b,p,lkv]"]

    def both(template):
        return [prefill(template % ckv[0]), decode(template % ckv[1])]

    head = [
        copy("I[b,m,d] = I_in[b,m,d]"),
        "CQ[b,m,lq] = I[b,m,d] * WCQ[d,lq]",
        "CKV[b,m,lkv] = I[b,m,d] * WCKV[d,lkv]",
    ]
    if absorbed:
        return head + [
            "Q[b,m,h,e] = CQ[b,m,lq] * WQ[h,e,lq]",
            "Q_latent[b,m,h,lkv] = Q[b,m,h,e] * WK[h,e,lkv]",
            *both("QK[b,m,p,h] = Q_latent[b,m,h,lkv] * %s"),
            "QK_softmax[b,m,p,h] = QK[b,m,p,h]",
            *both("AV_latent[b,m,h,lkv] = QK_softmax[b,m,p,h] * %s"),
            "AV[b,m,h,f] = AV_latent[b,m,h,lkv] * WV[h,f,lkv]",
            "Z[b,m,g] = AV[b,m,h,f] * WZ[h,f,g]",
        ]
    return head + [
        "Q[b,m,h,e] = CQ[b,m,lq] * WQN[h,e,lq]",
        *both("K[b,p,h,e] = %s * WKN[h,e,lkv]"),
        "QK[b,m,p,h] = Q[b,m,h,e] * K[b,p,h,e]",
        "QK_softmax[b,m,p,h] = QK[b,m,p,h]",
        *both("V[b,p,h,f] = %s * WV[h,f,lkv]"),
        "AV[b,m,h,f] = QK_softmax[b,m,p,h] * V[b,p,h,f]",
        "Z[b,m,g] = AV[b,m,h,f] * WZ[h,f,g]",
    ]


# ---- Feed-forward blocks (accelforge _feedforward_types) ----

def dense_two_layer():
    return ["FFA[b,m,c] = Z[b,m,g] * WFFA[g,c]",
            "FFB[b,m,j] = FFA[b,m,c] * WFFB[c,j]"]


def gated_linear_unit():
    return ["FFG[b,m,c] = Z[b,m,g] * WFFG[g,c]",
            "FFU[b,m,c] = Z[b,m,g] * WFFU[g,c]",
            "FFH[b,m,c] = FFG[b,m,c] * FFU[b,m,c]",
            "FFB[b,m,j] = FFH[b,m,c] * WFFD[c,j]"]


def routed_experts():
    return ["FFG[b,x,xt,c] = Z_per_expert[b,x,xt,g] * WFFG[x,g,c]",
            "FFU[b,x,xt,c] = Z_per_expert[b,x,xt,g] * WFFU[x,g,c]",
            "FFH[b,x,xt,c] = FFG[b,x,xt,c] * FFU[b,x,xt,c]",
            "FFD[b,x,xt,j] = FFH[b,x,xt,c] * WFFD[x,c,j]"]


def mixture_of_experts():
    return ([copy("Z_per_expert[b,x,xt,g] = Z[b,m,g]")] + routed_experts()
            + [copy("FFB[b,m,j] = FFD[b,x,xt,j]")])


def mixture_of_experts_shared():
    return (["SFG[b,m,cs] = Z[b,m,g] * WSFG[g,cs]",
             "SFU[b,m,cs] = Z[b,m,g] * WSFU[g,cs]",
             "SFH[b,m,cs] = SFG[b,m,cs] * SFU[b,m,cs]",
             "SFB[b,m,j] = SFH[b,m,cs] * WSFD[cs,j]",
             copy("Z_per_expert[b,x,xt,g] = Z[b,m,g]")]
            + routed_experts()
            + [copy("RFFB[b,m,j] = FFD[b,x,xt,j]"),
               "FFB[b,m,j] = SFB[b,m,j] + RFFB[b,m,j]"])


MOE_LET = {
    "active_experts": "min(n_experts, new_tokens * experts_per_token)",
    "tokens_per_expert": "ceil(new_tokens * experts_per_token / active_experts)",
}
MOE_RANKS = {"X": "active_experts", "XT": "tokens_per_expert"}

NOT_MODELLED = ("Not modelled (as in the reference): positional encodings, normalisation, "
                "residual additions, activation functions, biases, router and top-k "
                "weighting, the sum over experts, KV-cache concatenation and the causal "
                "mask (prefill QK is the full M x P square).")

DECODE_NOTE = ("In decode (decode=true) QK and AV read the caches K_cache and V_cache "
               "(P = cached_tokens); the fresh K and V are still computed but nothing reads "
               "them, so they are workload outputs.")

MOE_NOTE = ("Experts: only the active experts are modelled, with tokens spread evenly: "
            "X = min(n_experts, new_tokens * experts_per_token) experts of "
            "XT = ceil(new_tokens * experts_per_token / X) tokens each (batch stays a "
            "separate rank, as in the reference).")


def base(name, description, source, layer, parameters, let, checks, ranks, einsums,
         bits=None, tensors=None):
    out = {
        "ffm_workload": 1,
        "name": name,
        "description": description,
        "source": source,
        "layer": layer,
        "parameters": parameters,
        "let": let,
        "checks": checks,
        "ranks": ranks,
        "bits_per_value": bits or {"all": 16},
        "persistent": "weight - intermediates",
    }
    if tensors:
        out["tensors"] = tensors
    out["einsums"] = einsums
    return out


MHA_RANKS = {"B": "batch", "M": "new_tokens", "P": "context", "H": "heads",
             "E": "d_head", "F": "d_head", "D": "d_model", "G": "d_model",
             "C": "d_ff", "J": "d_model"}
GQA_RANKS = {"B": "batch", "M": "new_tokens", "P": "context", "HKV": "kv_heads",
             "HQ": "q_heads_per_kv", "E": "d_head", "F": "d_head", "D": "d_model",
             "G": "d_model", "C": "d_ff", "J": "d_model"}


def gpt3(name, size, layers, d_model, heads, section):
    max_help = ("context limit checked against new_tokens (+ cached_tokens in decode); "
                "GPT-3's n_ctx is 2048, raised to 4096 so that the FFM paper's "
                "batch-64, 4096-token experiment loads (set 2048 for the published limit)")
    return base(
        name,
        "One decoder layer of GPT-3 %s: multi-head attention and the dense two-layer "
        "feed-forward block, for prefill or one decode step. %s %s"
        % (size, DECODE_NOTE, NOT_MODELLED),
        "Brown et al., 'Language Models are Few-Shot Learners', arXiv:2005.14165, "
        "Table 2.1 (GPT-3 %s: %d layers, d_model %d, %d heads of 128, d_ff = 4 d_model, "
        "n_ctx 2048); structure of accelforge examples/workloads/transformers/gpt/"
        "gpt3_%s.yaml; 16 bits per value"
        % (size, layers, d_model, heads, size),
        "one of the model's %d identical decoder layers; 10 Einsums in this order: "
        "copy I = I_in; projections V, K, Q; attention scores QK; QK_softmax; AV; "
        "output projection Z; feed-forward FFA, FFB" % layers,
        token_parameters(4096, max_help),
        {"heads": heads, "d_head": 128, "d_model": d_model, "d_ff": "4 * d_model",
         "context": "decode ? cached_tokens : new_tokens"},
        token_checks(),
        MHA_RANKS,
        multi_head() + dense_two_layer())


def gqa_model(name, description, source, layer, max_tokens, let, ffn, moe):
    ranks = dict(GQA_RANKS)
    let = dict(let)
    let["q_heads_per_kv"] = "heads / kv_heads"
    let["context"] = "decode ? cached_tokens : new_tokens"
    if moe:
        let.update(MOE_LET)
        ranks.update(MOE_RANKS)
    return base(name, description, source, layer,
                token_parameters(max_tokens, "context limit checked against new_tokens "
                                 "(+ cached_tokens in decode): the model's maximum "
                                 "position embeddings"),
                let, token_checks(), ranks, grouped_query() + ffn)


def llama3_8b():
    return gqa_model(
        "llama3-8b",
        "One decoder layer of Llama 3 8B: grouped-query attention (32 query heads "
        "sharing 8 key/value heads) and the gated-linear-unit feed-forward block "
        "(SwiGLU), for prefill or one decode step. %s %s" % (DECODE_NOTE, NOT_MODELLED),
        "Llama Team, 'The Llama 3 Herd of Models', arXiv:2407.21783, Table 3, and "
        "meta-llama/Meta-Llama-3-8B config.json (32 layers, hidden 4096, 32 heads, 8 KV "
        "heads, head dim 128, intermediate 14336, max positions 8192); structure of "
        "accelforge examples/workloads/transformers/llama/llama3_8B.yaml; 16 bits per value",
        "one of the model's 32 identical decoder layers; 12 Einsums in this order: copy "
        "I = I_in; projections V, K, Q; QK; QK_softmax; AV; output projection Z; gate "
        "FFG, up FFU, their product FFH, down projection FFB",
        8192,
        {"heads": 32, "kv_heads": 8, "d_head": 128, "d_model": 4096, "d_ff": 14336},
        gated_linear_unit(), False)


def qwen3_8b():
    return gqa_model(
        "qwen3-8b",
        "One decoder layer of Qwen3-8B (dense): grouped-query attention (32 query heads "
        "sharing 8 key/value heads) and the gated-linear-unit feed-forward block, for "
        "prefill or one decode step. %s %s" % (DECODE_NOTE, NOT_MODELLED),
        "Qwen Team, 'Qwen3 Technical Report', arXiv:2505.09388, and Qwen/Qwen3-8B "
        "config.json (36 layers, hidden 4096, 32 heads, 8 KV heads, head dim 128, "
        "intermediate 12288, max positions 40960); structure of accelforge examples/"
        "workloads/transformers/qwen/qwen3_8B.yaml; 16 bits "
        "per value",
        "one of the model's 36 identical decoder layers; 12 Einsums in this order: copy "
        "I = I_in; projections V, K, Q; QK; QK_softmax; AV; output projection Z; gate "
        "FFG, up FFU, their product FFH, down projection FFB",
        40960,
        {"heads": 32, "kv_heads": 8, "d_head": 128, "d_model": 4096, "d_ff": 12288},
        gated_linear_unit(), False)


MOE_LAYER = ("copy I = I_in; projections V, K, Q; QK; QK_softmax; AV; output projection Z; "
             "copy (scatter) Z_per_expert = Z; per expert gate FFG, up FFU, product FFH, "
             "down FFD; copy (gather) FFB = FFD")


def mixtral_8x22b():
    return gqa_model(
        "mixtral-8x22b",
        "One decoder layer of Mixtral 8x22B: grouped-query attention (48 query heads "
        "sharing 8 key/value heads) and a mixture of 8 gated-linear-unit experts, 2 per "
        "token, for prefill or one decode step. %s %s %s"
        % (DECODE_NOTE, MOE_NOTE, NOT_MODELLED),
        "Mistral AI, mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, "
        "48 heads, 8 KV heads, head dim 128, expert intermediate 16384, 8 experts, 2 per "
        "token, max positions 65536); Jiang et al., 'Mixtral of Experts', "
        "arXiv:2401.04088; structure of accelforge examples/workloads/transformers/"
        "mixtral/mixtral8x22B.yaml; 16 bits per value"
       ,
        "one of the model's 56 identical decoder layers; 14 Einsums in this order: "
        + MOE_LAYER,
        65536,
        {"heads": 48, "kv_heads": 8, "d_head": 128, "d_model": 6144, "d_ff": 16384,
         "n_experts": 8, "experts_per_token": 2},
        mixture_of_experts(), True)


def qwen3_30b_a3b():
    return gqa_model(
        "qwen3-30b-a3b",
        "One decoder layer of Qwen3-30B-A3B (mixture of experts): grouped-query "
        "attention (32 query heads sharing 4 key/value heads; the query projection maps "
        "2048 to 32 x 128 = 4096) and 128 gated-linear-unit experts, 8 per token, no "
        "shared expert, for prefill or one decode step. %s %s %s"
        % (DECODE_NOTE, MOE_NOTE, NOT_MODELLED),
        "Qwen Team, 'Qwen3 Technical Report', arXiv:2505.09388, and Qwen/Qwen3-30B-A3B "
        "config.json (48 layers, hidden 2048, 32 heads, 4 KV heads, head dim 128, expert "
        "intermediate 768, 128 experts, 8 per token, max positions 40960); structure of "
        "accelforge examples/workloads/transformers/qwen/qwen3_30B_A3B.yaml; 16 bits per value",
        "one of the model's 48 identical decoder layers; 14 Einsums in this order: "
        + MOE_LAYER,
        40960,
        {"heads": 32, "kv_heads": 4, "d_head": 128, "d_model": 2048, "d_ff": 768,
         "n_experts": 128, "experts_per_token": 8},
        mixture_of_experts(), True)


SHARED_LAYER = ("shared expert SFG, SFU, SFH, SFB; copy (scatter) Z_per_expert = Z; per "
                "routed expert FFG, FFU, FFH, FFD; copy (gather) RFFB = FFD; FFB = SFB + "
                "RFFB")
GLU_LAYER = "gate FFG, up FFU, their product FFH, down projection FFB"


def deepseek_v3():
    absorbed = "attention == 'mla-absorbed'"
    moe = "feedforward == 'moe'"
    params = token_parameters(163840, "context limit checked against new_tokens "
                              "(+ cached_tokens in decode): the model's maximum position "
                              "embeddings")
    params["attention"] = {
        "type": "string", "default": "mla-absorbed", "choices": ["mla-absorbed", "mla"],
        "help": "multi-head latent attention with the key/value up-projections absorbed "
                "into the query and output side (mla-absorbed, the reference's "
                "ABSORBED=true) or applied to every context token (mla)"}
    params["feedforward"] = {
        "type": "string", "default": "moe", "choices": ["moe", "dense"],
        "help": "moe: 1 shared + 256 routed experts, 8 per token (layers 4-61); dense: "
                "the gated-linear-unit block of d_ff 18432 (the first 3 layers)"}
    let = {"heads": 128, "d_head": 128, "d_v": 128, "q_latent": 1536, "kv_latent": 512,
           "d_model": 7168, "d_ff": "feedforward == 'dense' ? 18432 : 2048",
           "d_ff_shared": 2048, "n_experts": 256, "experts_per_token": 8,
           "context": "decode ? cached_tokens : new_tokens"}
    let.update(MOE_LET)
    ranks = {"B": "batch", "M": "new_tokens", "P": "context", "H": "heads",
             "E": "d_head", "F": "d_v", "LQ": "q_latent", "LKV": "kv_latent",
             "D": "d_model", "G": "d_model", "C": "d_ff", "CS": "d_ff_shared",
             "J": "d_model"}
    ranks.update(MOE_RANKS)
    einsums = (with_when(multi_head_latent(True), absorbed)
               + with_when(multi_head_latent(False), "attention == 'mla'")
               + with_when(mixture_of_experts_shared(), moe)
               + with_when(gated_linear_unit(), "feedforward == 'dense'"))
    # 8 bits by default, 16 for the tensors the reference lists (its DeepSeek-V3 model file);
    # per tensor, because a set expression may not name a tensor that the
    # chosen variant does not have.
    tensors = {name: {"bits": 16} for name in
               ["QK", "QK_softmax", "Q_latent", "K", "V", "FFG", "FFU", "FFB", "SFG",
                "SFU", "SFB", "FFD", "RFFB"]}
    tensors["CKV"] = {"bits": "%s ? 16 : 8" % absorbed}
    tensors["CKV_cache"] = {"bits": "%s ? 16 : 8" % absorbed}
    tensors["Q"] = {"bits": "%s ? 8 : 16" % absorbed}
    return base(
        "deepseek-v3-671b",
        "One decoder layer of DeepSeek-V3 (671B): multi-head latent attention (queries "
        "and keys/values compressed to latents of 1536 and 512) and either the mixture "
        "of 1 shared and 256 routed gated-linear-unit experts (8 per token) or the dense "
        "gated-linear-unit block, for prefill or one decode step. Only the no-RoPE part "
        "of the query/key heads (128 per head) is modelled. Mixed precision: 16 bits for "
        "QK, QK_softmax, FFG, FFU, FFB, the latent cache CKV (and CKV_cache, Q_latent) "
        "when absorbed or Q, K, V when not, and the MoE tensors SFG, SFU, SFB, FFD, RFFB; "
        "8 bits for everything else, weights included. In decode QK and AV_latent (or K "
        "and V) read CKV_cache (P = cached_tokens); the fresh CKV becomes an output. "
        "With attention=mla and decode the reference fails to assign roles; here K and V "
        "take CKV_cache as their input. %s %s" % (MOE_NOTE, NOT_MODELLED),
        "DeepSeek-AI, 'DeepSeek-V3 Technical Report', arXiv:2412.19437, and "
        "deepseek-ai/DeepSeek-V3 config.json (61 layers of which the first 3 dense, "
        "hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim "
        "128, v_head_dim 128, intermediate 18432, moe_intermediate 2048, 1 shared and "
        "256 routed experts, 8 per token, max positions 163840); structure of accelforge "
        "examples/workloads/transformers/deepseek/deepseek_v3_671B.yaml",
        "one decoder layer (61 in the model: 3 with feedforward=dense, 58 with moe); "
        "attention=mla-absorbed: copy I = I_in; CQ, CKV; Q, Q_latent; QK; QK_softmax; "
        "AV_latent; AV; Z (10 Einsums); attention=mla: copy I = I_in; CQ, CKV; Q; K; QK; "
        "QK_softmax; V; AV; Z (10 Einsums); then feedforward=moe: " + SHARED_LAYER
        + " (11 Einsums) or feedforward=dense: " + GLU_LAYER + " (4 Einsums)",
        params, let, token_checks(), ranks, einsums, {"all": 8}, tensors)


def llama4(name, experts, dense_variant):
    gqa = "attention == 'gqa'"
    params = token_parameters(10485760, "context limit of global (gqa) attention layers, "
                              "checked against new_tokens (+ cached_tokens in decode): "
                              "the model's maximum position embeddings")
    params["attention"] = {
        "type": "string", "default": "gqa", "choices": ["gqa", "chunked"],
        "help": "gqa: the global-attention layers (every 4th); chunked: the local "
                "layers, attending within chunks of chunk_size tokens"}
    params["chunk_size"] = {"type": "integer", "default": 8192, "min": 1,
                            "help": "tokens per attention chunk (attention=chunked)"}
    if dense_variant:
        params["feedforward"] = {
            "type": "string", "default": "moe", "choices": ["moe", "dense"],
            "help": "moe: 1 shared + 128 routed experts, 1 per token (every other "
                    "layer); dense: the gated-linear-unit block of d_ff 16384"}
    let = {"heads": 40, "kv_heads": 8, "q_heads_per_kv": "heads / kv_heads",
           "d_head": 128, "d_model": 5120,
           "d_ff": "feedforward == 'dense' ? 16384 : 8192" if dense_variant else 8192,
           "d_ff_shared": 8192, "n_experts": experts, "experts_per_token": 1,
           "context": "decode ? cached_tokens : new_tokens",
           "chunk_fill": "decode ? ((new_tokens + cached_tokens) % chunk_size == 0 ? "
                         "chunk_size : (new_tokens + cached_tokens) % chunk_size) : 0",
           "chunk_decode": "decode && max(chunk_fill, new_tokens) - new_tokens > 0",
           "chunks": "chunk_decode ? 1 : ceil(new_tokens / chunk_size)",
           "chunk_new_tokens": "ceil(new_tokens / chunks)",
           "chunk_context": "chunk_decode ? max(chunk_fill, new_tokens) - new_tokens "
                            ": ceil(new_tokens / chunks)"}
    let.update(MOE_LET)
    ranks = dict(GQA_RANKS)
    ranks.update({"MC": "chunk_new_tokens", "PC": "chunk_context", "CH": "chunks",
                  "CS": "d_ff_shared"})
    ranks.update(MOE_RANKS)
    checks = token_checks(gqa) + [
        {"assert": "new_tokens <= 1", "when": "attention == 'chunked' && decode",
         "message": "chunked attention decodes one token per step: new_tokens must be 1"}]
    einsums = (with_when(grouped_query(), gqa)
               + with_when(chunked_local(), "attention == 'chunked'"))
    if dense_variant:
        einsums += (with_when(mixture_of_experts_shared(), "feedforward == 'moe'")
                    + with_when(gated_linear_unit(), "feedforward == 'dense'"))
    else:
        einsums += mixture_of_experts_shared()
    chunk_note = (" With attention=chunked the sequence is split into CH = "
                  "ceil(new_tokens / chunk_size) chunks of MC new tokens attending to PC "
                  "context tokens of their own chunk (in decode: the tokens of the last, "
                  "partly filled chunk); I and Z are re-laid out by copies, Z is written "
                  "as ZC first. The max_tokens check applies to gqa only, as in the "
                  "reference.")
    if dense_variant:
        layer = ("one decoder layer (48 in the model: every 4th with global attention "
                 "(gqa), the others chunked; every other layer feedforward=dense); "
                 "attention=gqa: copy I = I_in; V, K, Q; QK; QK_softmax; AV; Z (8 "
                 "Einsums); attention=chunked: copy I = I_in; V, K, Q; QK; QK_softmax; "
                 "AV; ZC; copy Z = ZC (9 Einsums); then feedforward=moe: " + SHARED_LAYER
                 + " (11 Einsums) or feedforward=dense: " + GLU_LAYER + " (4 Einsums)")
        source = ("Meta, meta-llama/Llama-4-Maverick-17B-128E config.json (48 layers, "
                  "hidden 5120, 40 heads, 8 KV heads, head dim 128, expert and shared "
                  "intermediate 8192, dense intermediate 16384, 128 routed experts, 1 "
                  "per token, MoE every other layer, attention chunk 8192, every 4th "
                  "layer global, max positions 10485760); structure of accelforge "
                  "examples/workloads/transformers/llama/llama4_maverick.yaml; 16 bits per value")
        what = ("One decoder layer of Llama 4 Maverick (17B active, 128 experts): "
                "grouped-query attention (40 query heads sharing 8 key/value heads), "
                "global or chunked-local, and either the mixture of 1 shared and 128 "
                "routed gated-linear-unit experts (1 per token) or the dense "
                "gated-linear-unit block, for prefill or one decode step.")
    else:
        layer = ("one of the model's 48 decoder layers (every 4th with global attention "
                 "(gqa), the others chunked); attention=gqa: copy I = I_in; V, K, Q; QK; "
                 "QK_softmax; AV; Z (8 Einsums); attention=chunked: copy I = I_in; V, K, "
                 "Q; QK; QK_softmax; AV; ZC; copy Z = ZC (9 Einsums); then "
                 + SHARED_LAYER + " (11 Einsums)")
        source = ("Meta, meta-llama/Llama-4-Scout-17B-16E config.json (48 layers, hidden "
                  "5120, 40 heads, 8 KV heads, head dim 128, expert and shared "
                  "intermediate 8192, 16 routed experts, 1 per token, attention chunk "
                  "8192, every 4th layer global, max positions 10485760); structure of "
                  "accelforge examples/workloads/transformers/llama/llama4_scout.yaml; "
                  "16 bits per value")
        what = ("One decoder layer of Llama 4 Scout (17B active, 16 experts): "
                "grouped-query attention (40 query heads sharing 8 key/value heads), "
                "global or chunked-local, and the mixture of 1 shared and 16 routed "
                "gated-linear-unit experts (1 per token), for prefill or one decode step.")
    return base(name, "%s %s%s %s %s" % (what, DECODE_NOTE, chunk_note, MOE_NOTE,
                                          NOT_MODELLED),
                source, layer, params, let, checks, ranks, einsums)


def all_models():
    return [
        gpt3("gpt3-6.7b", "6.7B", 32, 4096, 32, "5.1"),
        gpt3("gpt3-175b", "175B", 96, 12288, 96, "5.2"),
        llama3_8b(),
        qwen3_8b(),
        mixtral_8x22b(),
        qwen3_30b_a3b(),
        deepseek_v3(),
        llama4("llama4-scout", 16, False),
        llama4("llama4-maverick", 128, True),
    ]
