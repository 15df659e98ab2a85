"""Hand-sized workloads: the FFM paper's matmul chain, mobilenet-28 and mamba
(accelforge examples/workloads/cnns/mobilenet and transformers/mamba; the FFM paper's scaling experiment, section 7)."""


def matmul_chain():
    return {
        "ffm_workload": 1,
        "name": "matmul-chain",
        "description": "A chain of n_einsums matrix multiplications, each reading the "
                       "previous one's output: the workload of the FFM paper's scaling "
                       "experiment (mapper run time against the number of Einsums). "
                       "M = 8192 rows; the shapes (N, K) cycle (16384, 16384) -> (4096, "
                       "16384) -> (4096, 4096) -> (16384, 4096) -> repeat, so rank N{i} "
                       "(the columns of T{i}) is 16384 when i mod 4 is 0 or 1 and 4096 "
                       "otherwise. 8 bits per value (as basic matmuls); no persistent "
                       "tensors.",
        "source": "FFM paper (section 7, scaling experiment); Einsums as accelforge "
                  "examples/workloads/basic/matmuls.yaml",
        "layer": "the whole chain: Einsum Matmul{i}, i = 0 ... n_einsums-1, is "
                 "T{i+1}[m,n{i+1}] = T{i}[m,n{i}] * W{i}[n{i},n{i+1}]; T0 and the "
                 "W{i} are inputs, T{n_einsums} the output",
        "parameters": {
            "n_einsums": {"type": "integer", "default": 4, "min": 1,
                          "help": "number of matrix multiplications in the chain"},
        },
        "let": {"rows": 8192, "wide": 16384, "narrow": 4096},
        "ranks": {"M": "rows", "N0": "wide"},
        "bits_per_value": {"all": 8},
        "einsums": [
            {"repeat": {"var": "i", "count": "n_einsums"},
             "ranks": {"N{i+1}": "(i + 1) % 4 < 2 ? wide : narrow"},
             "einsums": [
                 {"name": "Matmul{i}",
                  "einsum": "T{i+1}[m,n{i+1}] = T{i}[m,n{i}] * W{i}[n{i},n{i+1}]"},
             ]},
        ],
    }


def mobilenet_28():
    return {
        "ffm_workload": 1,
        "name": "mobilenet-28",
        "description": "Two MobileNet-v2-style inverted-residual blocks at 28x28: each a 1x1 "
                       "expansion from 24 to 192 channels, a 3x3 depthwise convolution and "
                       "a 1x1 projection back to 24 channels, chained so that each output "
                       "feeds the next Einsum (residual additions, activations and padding "
                       "not modelled: the depthwise Einsums read their 28x28 inputs as "
                       "30x30, as in the reference). 8 bits per value; weights persistent.",
        "source": "accelforge examples/workloads/cnns/mobilenet/mobilenet_28.yaml, "
                  "after Sandler et al., "
                  "'MobileNetV2: Inverted Residuals and Linear Bottlenecks', "
                  "arXiv:1801.04381",
        "layer": "two blocks, 6 Einsums in this order: PiecewiseA0 (1x1 expansion), "
                 "Depthwise0 (3x3 depthwise), PiecewiseB0 (1x1 projection), PiecewiseA1, "
                 "Depthwise1, PiecewiseB2 (the last is named B2 and reads WB1, as "
                 "upstream)",
        "parameters": {
            "batch": {"type": "integer", "default": 1, "min": 1,
                      "help": "images processed together (rank B)"},
        },
        "ranks": {"B": "batch", "P0": 28, "Q0": 28, "P1": 28, "Q1": 28, "P2": 28,
                  "Q2": 28, "N0": 24, "N1": 24, "N2": 24, "T0": 192, "T1": 192},
        "bits_per_value": {"all": 8},
        "persistent": "weight - intermediates",
        "einsums": [
            {"name": "PiecewiseA0", "einsum": "TA0[p0,q0,t0,b] = T0[p0,q0,n0,b] * WA0[n0,t0]"},
            {"name": "Depthwise0",
             "einsum": "TB0[p1,q1,t0,b] = TA0[P0:p1+r0,Q0:q1+s0,T0:t0,B:b] * WAB0[r0,s0,t0]",
             "bounds": {"r0": 3, "s0": 3}},
            {"name": "PiecewiseB0", "einsum": "T1[p1,q1,n1,b] = TB0[p1,q1,t0,b] * WB0[t0,n1]"},
            {"name": "PiecewiseA1", "einsum": "TA1[p1,q1,t1,b] = T1[p1,q1,n1,b] * WA1[n1,t1]"},
            {"name": "Depthwise1",
             "einsum": "TB1[p2,q2,t1,b] = TA1[P1:p2+r1,Q1:q2+s1,T1:t1,B:b] * WAB1[r1,s1,t1]",
             "bounds": {"r1": 3, "s1": 3}},
            {"name": "PiecewiseB2", "einsum": "T2[p2,q2,n2,b] = TB1[p2,q2,t1,b] * WB1[t1,n2]"},
        ],
    }


def mamba():
    x_input = {"input": "X"}
    return {
        "ffm_workload": 1,
        "name": "mamba",
        "description": "One step of a Mamba selective state-space layer with the sequence "
                       "rank removed (a single iteration): input-dependent B, C and step "
                       "size (through a rank-R bottleneck), discretisation, state update "
                       "H = HX + HH and output S, plus the skip term D * X. Work in "
                       "progress upstream: the final output Y is not formed. 8 bits per "
                       "value, no persistent tensors. Weight-like tensors are written first "
                       "in several Einsums, as upstream; where neither input is an "
                       "intermediate, X is given the input role (upstream defines no "
                       "roles). The upstream N_TOKENS parameter is unused there and "
                       "omitted here.",
        "source": "accelforge examples/workloads/transformers/mamba/mamba.yaml, "
                  "adapted upstream from "
                  "arXiv 2604.03829v1; Gu and Dao, 'Mamba: Linear-Time Sequence Modeling "
                  "with Selective State Spaces', arXiv:2312.00752. D = 128 x 32 = 4096 "
                  "channels, state size N = 128, bottleneck R = 128 ('to confirm' "
                  "upstream)",
        "layer": "one time step of one Mamba layer, 12 Einsums in this order: B, C, TTD, "
                 "TD, DELTA, AD, HH, HX, H, S, DX, L",
        "parameters": {
            "batch": {"type": "integer", "default": 1, "min": 1,
                      "help": "sequences processed together (rank B)"},
        },
        "let": {"d_inner": "128 * 32", "d_state": 128, "dt_rank": 128},
        "ranks": {"B": "batch", "D": "d_inner", "N": "d_state", "R": "dt_rank"},
        "bits_per_value": {"all": 8},
        "einsums": [
            {"einsum": "B[b,n] = WB[d,n] * X[b,d]", "roles": x_input},
            {"einsum": "C[b,n] = WC[d,n] * X[b,d]", "roles": x_input},
            {"einsum": "TTD[b,r] = WTTD[d,r] * X[b,d]", "roles": x_input},
            "TD[b,d] = WTD[d,r] * TTD[b,r]",
            "DELTA[b,d] = TD[b,d]",
            "AD[b,d,n] = A[d,n] * DELTA[b,d]",
            "HH[b,d,n] = H_prev[b,d,n] * AD[b,d,n]",
            {"einsum": "HX[b,d,n] = BD[b,d,n] * X[b,d]", "roles": x_input},
            "H[b,d,n] = HX[b,d,n] + HH[b,d,n]",
            "S[b,d] = C[b,n] * H[b,d,n]",
            {"einsum": "DX[b,d] = D[d] * X[b,d]", "roles": x_input},
            "L[b,d] = DX[b,d] + DX[b,d]",
        ],
    }
