"""The compute-in-memory (CiMLoop) workloads: every layer of a network as an
independent Einsum with its own tensors, from the layer tables of
cim_layers.py (the layer shapes of accelforge examples/workloads/compute_in_memory)."""

from cim_layers import LAYERS

# One Einsum template per layer kind, instantiated for record l, Einsum k.
# I{k} is the input, W{k} the weights, T{k} the output; H and W are ranks of
# the input (rows, columns), unrelated to the tensor W{k}. N (batch) is the
# only sized rank; every other variable is bounded by the record.
TEMPLATES = [
    {"einsum": "T{k}[p{k},q{k},n,m{k}] = I{k}[n,c{k},H:{l.stride}*p{k}+r{k},"
               "W:{l.stride}*q{k}+s{k}] * W{k}[r{k},s{k},c{k},m{k}]",
     "when": "l.kind == 'conv'",
     "bounds": {"p{k}": "l.p", "q{k}": "l.q", "c{k}": "l.c", "m{k}": "l.m",
                "r{k}": "l.r", "s{k}": "l.s"}},
    {"einsum": "T{k}[p{k},q{k},n,m{k}] = I{k}[n,c{k},H:2*p{k},W:2*q{k}] * W{k}[c{k},m{k}]",
     "when": "l.kind == 'pws'",
     "bounds": {"p{k}": "l.p", "q{k}": "l.q", "c{k}": "l.c", "m{k}": "l.m"}},
    {"einsum": "T{k}[p{k},q{k},n,m{k}] = I{k}[n,c{k},p{k},q{k}] * W{k}[c{k},m{k}]",
     "when": "l.kind == 'pw'",
     "bounds": {"p{k}": "l.p", "q{k}": "l.q", "c{k}": "l.c", "m{k}": "l.m"}},
    {"einsum": "T{k}[p{k},n,m{k}] = I{k}[n,c{k},p{k}] * W{k}[c{k},m{k}]",
     "when": "l.kind == 'fc'",
     "bounds": {"p{k}": "l.p", "c{k}": "l.c", "m{k}": "l.m"}},
    {"einsum": "T{k}[p{k},q{k},n,m{k}] = I{k}[n,c{k},H:{l.stride}*p{k}+r{k},"
               "W:{l.stride}*q{k}+s{k},g{k}] * W{k}[r{k},s{k},c{k},m{k},g{k}]",
     "when": "l.kind == 'dwg'",
     "bounds": {"p{k}": "l.p", "q{k}": "l.q", "c{k}": 1, "m{k}": 1, "g{k}": "l.g",
                "r{k}": "l.r", "s{k}": "l.s"}},
    {"einsum": "T{k}[p{k},n,m{k}] = I{k}[n,c{k},p{k},g{k}] * W{k}[c{k},m{k},g{k}]",
     "when": "l.kind == 'gfc'",
     "bounds": {"p{k}": "l.p", "c{k}": "l.c", "m{k}": "l.m", "g{k}": "l.g"}},
]

KINDS = ("Layer kinds: conv (T[p,q,n,m] = I[n,c,H:stride*p+r,W:stride*q+s] * "
         "W[r,s,c,m]), pws (1x1 convolution of stride 2), pw (1x1 convolution), fc "
         "(matrix product T[p,n,m] = I[n,c,p] * W[c,m], p rows), dwg (depthwise: one "
         "channel per group g, the output keeps no g rank, as upstream) and gfc (matrix "
         "product per group g, the output keeps no g rank). Input footprints are the "
         "box of the index expressions, not clipped and without padding (a stride-2 7x7 "
         "convolution to 112x112 reads 229x229).")

INFO = {
    "alexnet": (
        "AlexNet",
        "Krizhevsky, Sutskever and Hinton, 'ImageNet Classification with Deep "
        "Convolutional Neural Networks', NeurIPS 2012 (227x227 input)",
        "the 5 convolutions and 3 fully connected layers. The third convolution has 8 "
        "output channels, as in the upstream file (AlexNet has 384)"),
    "vgg16": (
        "VGG-16",
        "Simonyan and Zisserman, 'Very Deep Convolutional Networks for Large-Scale Image "
        "Recognition', arXiv:1409.1556, configuration D (224x224 input)",
        "the 13 convolutions and 3 fully connected layers (pooling not modelled)"),
    "resnet18": (
        "ResNet-18",
        "He, Zhang, Ren and Sun, 'Deep Residual Learning for Image Recognition', "
        "arXiv:1512.03385, Table 1 (224x224 input)",
        "the stem convolution, the 16 convolutions of the basic blocks, the 3 strided "
        "1x1 shortcut projections and the classifier"),
    "resnet50": (
        "ResNet-50",
        "He, Zhang, Ren and Sun, 'Deep Residual Learning for Image Recognition', "
        "arXiv:1512.03385, Table 1 (224x224 input)",
        "the stem convolution, the 1x1-3x3-1x1 bottleneck convolutions, the shortcut "
        "projections and the classifier, in the order of the upstream file"),
    "densenet201": (
        "DenseNet-201",
        "Huang, Liu, van der Maaten and Weinberger, 'Densely Connected Convolutional "
        "Networks', arXiv:1608.06993, Table 1 (growth rate 32, blocks of 6, 12, 48 and "
        "32 layers; 224x224 input)",
        "the stem convolution; per dense layer a 1x1 bottleneck (to 128 channels) and a "
        "3x3 convolution (to 32); the 1x1 transition convolutions (at the resolution "
        "before pooling; pooling not modelled); the classifier"),
    "mobilenet-v3": (
        "MobileNetV3-Large",
        "Howard et al., 'Searching for MobileNetV3', arXiv:1905.02244, Table 1 "
        "(224x224 input)",
        "the stem convolution; per bottleneck the 1x1 expansion, the depthwise "
        "convolution, the squeeze-and-excitation pair of fc layers where present and "
        "the 1x1 projection; the final 1x1 convolution and 2 classifier layers"),
    "vision-transformer": (
        "ViT-B/16",
        "Dosovitskiy et al., 'An Image is Worth 16x16 Words', arXiv:2010.11929 (ViT-Base, "
        "patch 16, 224x224 input: 196 patches + 1 class token = 197 tokens, 12 layers, "
        "hidden 768, 12 heads, MLP 3072)",
        "the patch-embedding convolution; per encoder layer the Q, K, V projections, "
        "the two attention products (written per head as fc layers of P = 12 rows, as "
        "upstream), the output projection and the two MLP layers; the classifier"),
    "dpt-large": (
        "DPT-Large",
        "Ranftl, Bochkovskiy and Koltun, 'Vision Transformers for Dense Prediction', "
        "arXiv:2103.13413 (ViT-L/16 backbone at 384x384: 577 tokens, 24 layers, hidden "
        "1024, 16 heads, MLP 4096; reassemble and fusion convolutions)",
        "the patch-embedding convolution; 24 encoder layers of 8 Einsums as in "
        "vision-transformer; the reassemble projections and convolutions and the fusion "
        "and head convolutions of the dense-prediction decoder"),
    "gpt2-medium": (
        "GPT-2 medium",
        "Radford et al., 'Language Models are Unsupervised Multitask Learners', OpenAI "
        "2019 (GPT-2 medium: 24 layers, d_model 1024, 16 heads, vocabulary 50257); 256 "
        "tokens",
        "per decoder layer the fused QKV projection, the output projection, the two "
        "attention products (written with P = 16 heads as rows, as upstream) and the two "
        "MLP layers, 24 times; then the vocabulary projection"),
    "mobilebert": (
        "MobileBERT",
        "Sun et al., 'MobileBERT: a Compact Task-Agnostic BERT for Resource-Limited "
        "Devices', arXiv:2004.02984 (24 layers, bottleneck 128, inter-block 512, 4 "
        "heads, 4 stacked feed-forward networks); 139 tokens",
        "the embedding projection; per layer the bottleneck projections, Q, K, V, the "
        "two attention products (P = 4 heads as rows, as upstream), the output "
        "projection and the 4 stacked feed-forward pairs, 17 Einsums, 24 times"),
    "phi-1.5": (
        "phi-1.5",
        "Li et al., 'Textbooks Are All You Need II: phi-1.5 technical report', "
        "arXiv:2309.05463 (24 layers, hidden 2048, 32 heads of 64, MLP 8192, vocabulary "
        "51200); 1024 tokens",
        "per decoder layer the fused QKV projection, the two attention products per "
        "head (grouped matmuls over G = 32 heads), the output projection and the two "
        "MLP layers, 24 times; then the vocabulary projection"),
}


def workload(name):
    layers = LAYERS[name]
    model, paper, what = INFO[name]
    return {
        "ffm_workload": 1,
        "name": name,
        "description": "%s as independent per-layer Einsums, as used with compute-in-memory "
                       "chips: each Einsum k has its own input I{k}, weights W{k} and output "
                       "T{k}, so no tensor is shared and nothing can be fused. 8 bits per "
                       "value, no persistent tensors. %s" % (model, KINDS),
        "source": "%s; layer shapes of accelforge examples/workloads/compute_in_memory "
                  "(CiMLoop: Andrulis, Emer and Sze, ISPASS 2024)" % paper,
        "layer": "the whole network, %d Einsums T0 ... T%d, one per layer in network order "
                 "(the k-th record of the repeat is Einsum T{k}): %s"
                 % (len(layers), len(layers) - 1, what),
        "parameters": {
            "batch": {"type": "integer", "default": 1, "min": 1,
                      "help": "images or sequences processed together (rank N)"},
        },
        "ranks": {"N": "batch"},
        "bits_per_value": {"all": 8},
        "einsums": [
            {"repeat": {"var": "l", "index": "k", "values": layers},
             "einsums": TEMPLATES},
        ],
    }
