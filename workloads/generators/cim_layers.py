"""Layer tables of the compute-in-memory (CiMLoop) workloads: one record per
Einsum, in order, as in accelforge examples/workloads/compute_in_memory.

Record kinds (P x Q output pixels or P rows, C input and M output channels,
R x S kernel):
  conv(P, Q, C, M, R, S, stride)   convolution
  pws(P, Q, C, M)                  1x1 convolution with stride 2
  pw(P, Q, C, M)                   1x1 convolution
  fc(P, C, M)                      matrix product, P rows
  dwg(P, Q, G, R, S, stride)       depthwise convolution over G groups
  gfc(P, C, M, G)                  matrix product per group, G groups

REFERENCE_TOTALS gives, per workload, the Einsum count and the reference's
sums of MACs and of tensor bits at batch 1 (checked by generate.py and by
tests/test-workload-library.c)."""


def conv(p, q, c, m, r, s, stride):
    return {"kind": "conv", "p": p, "q": q, "c": c, "m": m, "r": r, "s": s,
            "stride": stride}


def pws(p, q, c, m):
    return {"kind": "pws", "p": p, "q": q, "c": c, "m": m}


def pw(p, q, c, m):
    return {"kind": "pw", "p": p, "q": q, "c": c, "m": m}


def fc(p, c, m):
    return {"kind": "fc", "p": p, "c": c, "m": m}


def dwg(p, q, g, r, s, stride):
    return {"kind": "dwg", "p": p, "q": q, "g": g, "r": r, "s": s, "stride": stride}


def gfc(p, c, m, g):
    return {"kind": "gfc", "p": p, "c": c, "m": m, "g": g}


ALEXNET = [
    conv(55, 55, 3, 64, 11, 11, 4),
    conv(27, 27, 64, 192, 5, 5, 1),
    conv(13, 13, 192, 8, 3, 3, 1),      # M = 8 as upstream (AlexNet has 384)
    conv(13, 13, 384, 256, 3, 3, 1),
    conv(13, 13, 256, 256, 3, 3, 1),
    fc(1, 9216, 4096),
    fc(1, 4096, 4096),
    fc(1, 4096, 1000),
]

VGG16 = ([conv(224, 224, 3, 64, 3, 3, 1), conv(224, 224, 64, 64, 3, 3, 1),
          conv(112, 112, 64, 128, 3, 3, 1), conv(112, 112, 128, 128, 3, 3, 1),
          conv(56, 56, 128, 256, 3, 3, 1), conv(56, 56, 256, 256, 3, 3, 1),
          conv(56, 56, 256, 256, 3, 3, 1), conv(28, 28, 256, 512, 3, 3, 1),
          conv(28, 28, 512, 512, 3, 3, 1), conv(28, 28, 512, 512, 3, 3, 1)]
         + [conv(14, 14, 512, 512, 3, 3, 1)] * 3
         + [fc(1, 25088, 4096), fc(1, 4096, 4096), fc(1, 4096, 1000)])


def _resnet18_stage(p, c_in, c_out):
    return [conv(p, p, c_in, c_out, 3, 3, 2), conv(p, p, c_out, c_out, 3, 3, 1),
            pws(p, p, c_in, c_out), conv(p, p, c_out, c_out, 3, 3, 1),
            conv(p, p, c_out, c_out, 3, 3, 1)]


RESNET18 = ([conv(112, 112, 3, 64, 7, 7, 2)] + [conv(56, 56, 64, 64, 3, 3, 1)] * 4
            + _resnet18_stage(28, 64, 128) + _resnet18_stage(14, 128, 256)
            + _resnet18_stage(7, 256, 512) + [fc(1, 512, 1000)])


def _bottleneck(p, mid):
    return [pw(p, p, 4 * mid, mid), conv(p, p, mid, mid, 3, 3, 1), pw(p, p, mid, 4 * mid)]


RESNET50 = ([conv(112, 112, 3, 64, 7, 7, 2), pw(56, 56, 64, 64),
             conv(56, 56, 64, 64, 3, 3, 1), pw(56, 56, 64, 256)]
            + [pw(56, 56, 64, 256), pw(56, 56, 256, 64), conv(56, 56, 64, 64, 3, 3, 1)] * 2
            + [pw(56, 56, 64, 256), pw(56, 56, 256, 128), conv(28, 28, 128, 128, 3, 3, 2),
               pw(28, 28, 128, 512), pws(28, 28, 256, 512)]
            + _bottleneck(28, 128) * 3
            + [pw(28, 28, 512, 256), conv(14, 14, 256, 256, 3, 3, 2),
               pw(14, 14, 256, 1024), pws(14, 14, 512, 1024)]
            + _bottleneck(14, 256) * 5
            + [pw(14, 14, 1024, 512), conv(7, 7, 512, 512, 3, 3, 2),
               pw(7, 7, 512, 2048), pws(7, 7, 1024, 2048)]
            + _bottleneck(7, 512) * 2
            + [fc(1, 2048, 1000)])


def _dense_block(p, c0, n):
    out = []
    for i in range(n):
        out += [pw(p, p, c0 + 32 * i, 128), conv(p, p, 128, 32, 3, 3, 1)]
    return out


DENSENET201 = ([conv(112, 112, 3, 64, 7, 7, 2)]
               + _dense_block(56, 64, 6) + [pw(56, 56, 256, 128)]
               + _dense_block(28, 128, 12) + [pw(28, 28, 512, 256)]
               + _dense_block(14, 256, 48) + [pw(14, 14, 1792, 896)]
               + _dense_block(7, 896, 32) + [fc(1, 1920, 1000)])

MOBILENET_V3 = (
    [conv(112, 112, 3, 16, 3, 3, 2), dwg(112, 112, 16, 3, 3, 1), pw(112, 112, 16, 16),
     pw(112, 112, 16, 64), dwg(56, 56, 64, 3, 3, 2), pw(56, 56, 64, 24),
     pw(56, 56, 24, 72), dwg(56, 56, 72, 3, 3, 1), pw(56, 56, 72, 24),
     pw(56, 56, 24, 72), dwg(28, 28, 72, 5, 5, 2), fc(1, 72, 24), fc(1, 24, 72),
     pw(28, 28, 72, 40)]
    + [pw(28, 28, 40, 120), dwg(28, 28, 120, 5, 5, 1), fc(1, 120, 32), fc(1, 32, 120),
       pw(28, 28, 120, 40)] * 2
    + [pw(28, 28, 40, 240), dwg(14, 14, 240, 3, 3, 2), pw(14, 14, 240, 80),
       pw(14, 14, 80, 200), dwg(14, 14, 200, 3, 3, 1), pw(14, 14, 200, 80)]
    + [pw(14, 14, 80, 184), dwg(14, 14, 184, 3, 3, 1), pw(14, 14, 184, 80)] * 2
    + [pw(14, 14, 80, 480), dwg(14, 14, 480, 3, 3, 1), fc(1, 480, 120), fc(1, 120, 480),
       pw(14, 14, 480, 112), pw(14, 14, 112, 672), dwg(14, 14, 672, 3, 3, 1),
       fc(1, 672, 168), fc(1, 168, 672), pw(14, 14, 672, 112), pw(14, 14, 112, 672),
       dwg(7, 7, 672, 5, 5, 2), fc(1, 672, 168), fc(1, 168, 672), pw(7, 7, 672, 160)]
    + [pw(7, 7, 160, 960), dwg(7, 7, 960, 5, 5, 1), fc(1, 960, 240), fc(1, 240, 960),
       pw(7, 7, 960, 160)] * 2
    + [pw(7, 7, 160, 960), fc(1, 960, 1280), fc(1, 1280, 1000)])

GPT2_MEDIUM = ([fc(256, 1024, 3072), fc(256, 1024, 1024), fc(16, 256, 64),
                fc(16, 256, 256), fc(256, 1024, 4096), fc(256, 4096, 1024)] * 24
               + [fc(256, 1024, 50257)])

PHI_1_5 = ([fc(1024, 2048, 6144), gfc(1024, 64, 1024, 32), gfc(1024, 1024, 64, 32),
            fc(1024, 2048, 2048), fc(1024, 2048, 8192), fc(1024, 8192, 2048)] * 24
           + [fc(1024, 2048, 51200)])

MOBILEBERT = ([fc(139, 384, 512)]
              + ([fc(139, 512, 128), fc(139, 512, 128), fc(139, 128, 128),
                  fc(139, 128, 128), fc(139, 512, 128), fc(4, 139, 32), fc(4, 139, 139),
                  fc(139, 128, 128)]
                 + [fc(139, 128, 512), fc(139, 512, 128)] * 4
                 + [fc(139, 128, 512)]) * 24)

VISION_TRANSFORMER = ([conv(14, 14, 3, 768, 16, 16, 16)]
                      + ([fc(197, 768, 768)] * 3
                         + [fc(12, 197, 64), fc(12, 197, 197), fc(197, 768, 768),
                            fc(197, 768, 3072), fc(197, 3072, 768)]) * 12
                      + [fc(1, 768, 1000)])

DPT_LARGE = ([conv(24, 24, 3, 1024, 16, 16, 16)]
             + ([fc(577, 1024, 1024)] * 3
                + [fc(16, 577, 64), fc(16, 577, 577), fc(577, 1024, 1024),
                   fc(577, 1024, 4096), fc(577, 4096, 1024)]) * 24
             + [fc(576, 2048, 1024), pw(24, 24, 1024, 256),
                fc(576, 2048, 1024), pw(24, 24, 1024, 512)]
             + [fc(576, 2048, 1024), pw(24, 24, 1024, 1024)] * 2
             + [conv(12, 12, 1024, 1024, 3, 3, 2), conv(96, 96, 256, 256, 3, 3, 1),
                conv(48, 48, 512, 256, 3, 3, 1), conv(24, 24, 1024, 256, 3, 3, 1),
                conv(12, 12, 1024, 256, 3, 3, 1), conv(12, 12, 256, 256, 3, 3, 1),
                conv(12, 12, 256, 256, 3, 3, 1), pw(24, 24, 256, 256)]
             + [conv(24, 24, 256, 256, 3, 3, 1)] * 4 + [pw(48, 48, 256, 256)]
             + [conv(48, 48, 256, 256, 3, 3, 1)] * 4 + [pw(96, 96, 256, 256)]
             + [conv(96, 96, 256, 256, 3, 3, 1)] * 4
             + [pw(192, 192, 256, 256), conv(192, 192, 256, 128, 3, 3, 1),
                conv(384, 384, 128, 32, 3, 3, 1), pw(384, 384, 32, 1)])

LAYERS = {
    "alexnet": ALEXNET,
    "vgg16": VGG16,
    "resnet18": RESNET18,
    "resnet50": RESNET50,
    "densenet201": DENSENET201,
    "mobilenet-v3": MOBILENET_V3,
    "vision-transformer": VISION_TRANSFORMER,
    "dpt-large": DPT_LARGE,
    "gpt2-medium": GPT2_MEDIUM,
    "mobilebert": MOBILEBERT,
    "phi-1.5": PHI_1_5,
}

# name: (Einsums, sum of MACs, sum of tensor bits), batch 1 (the reference's layer files)
REFERENCE_TOTALS = {
    "alexnet": (8, 604384448, 490336856),
    "vgg16": (16, 15470264320, 1292396960),
    "resnet18": (21, 1814073344, 132421016),
    "resnet50": (54, 4089184256, 379573656),
    "densenet201": (201, 4291365888, 419665304),
    "mobilenet-v3": (64, 216589760, 107584176),
    "vision-transformer": (98, 16855904784, 959892512),
    "dpt-large": (227, 240776061312, 5744043456),
    "gpt2-medium": (145, 90515439616, 3756238848),
    "mobilebert": (409, 2817118560, 393370048),
    "phi-1.5": (145, 1447403978752, 25245515776),
}


def totals(records, batch=1):
    """Einsums, sum of MACs and sum of tensor bits (8 bits per value, every
    tensor of every Einsum, footprints as the reference computes them)."""
    macs = bits = 0
    for l in records:
        k = l["kind"]
        if k in ("conv", "dwg"):
            h = l["stride"] * (l["p"] - 1) + l["r"]
            w = l["stride"] * (l["q"] - 1) + l["s"]
        if k == "conv":
            ops = l["p"] * l["q"] * l["c"] * l["m"] * l["r"] * l["s"]
            vals = (batch * l["c"] * h * w + l["r"] * l["s"] * l["c"] * l["m"]
                    + batch * l["p"] * l["q"] * l["m"])
        elif k == "pws":
            ops = l["p"] * l["q"] * l["c"] * l["m"]
            vals = (batch * l["c"] * (2 * l["p"] - 1) * (2 * l["q"] - 1) + l["c"] * l["m"]
                    + batch * l["p"] * l["q"] * l["m"])
        elif k == "pw":
            ops = l["p"] * l["q"] * l["c"] * l["m"]
            vals = (batch * l["c"] * l["p"] * l["q"] + l["c"] * l["m"]
                    + batch * l["p"] * l["q"] * l["m"])
        elif k == "fc":
            ops = l["p"] * l["c"] * l["m"]
            vals = batch * l["c"] * l["p"] + l["c"] * l["m"] + batch * l["p"] * l["m"]
        elif k == "dwg":
            ops = l["p"] * l["q"] * l["g"] * l["r"] * l["s"]
            vals = (batch * h * w * l["g"] + l["r"] * l["s"] * l["g"]
                    + batch * l["p"] * l["q"])
        elif k == "gfc":
            ops = l["p"] * l["c"] * l["m"] * l["g"]
            vals = (batch * l["c"] * l["p"] * l["g"] + l["c"] * l["m"] * l["g"]
                    + batch * l["p"] * l["m"])
        macs += batch * ops
        bits += 8 * vals
    return len(records), macs, bits
