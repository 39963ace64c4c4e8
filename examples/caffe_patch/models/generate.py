#!/usr/bin/env python3
"""Writes the timing networks of this folder: AlexNet (batch 256) and ResNet-50 (batch 64).

Both read a DummyData input (Gaussian images, uniform labels 0..999) instead of a dataset, so
`caffe time` and `caffe train` need no data on disk; with a solver's `random_seed` the data and
the weights are the same in every run. AlexNet is Caffe 1.0's models/bvlc_alexnet without the
data and accuracy layers; ResNet-50 is He et al.'s (2016) bottleneck network as published for
Caffe (stride 2 in the first 1x1 convolution of stages 3-5), with BatchNorm + Scale.

    python3 examples/caffe_patch/models/generate.py   # rewrites alexnet.prototxt, resnet50.prototxt
"""
import argparse
import pathlib


def block(kind, name, bottoms, tops, body=""):
    lines = [f'layer {{\n  name: "{name}"\n  type: "{kind}"']
    lines += [f'  bottom: "{b}"' for b in bottoms]
    lines += [f'  top: "{t}"' for t in tops]
    if body:
        lines.append(body.rstrip("\n"))
    return "\n".join(lines) + "\n}\n"


def dummy_data(batch, channels, size):
    return block("DummyData", "data", [], ["data", "label"], f"""  dummy_data_param {{
    shape {{ dim: {batch} dim: {channels} dim: {size} dim: {size} }}
    shape {{ dim: {batch} }}
    data_filler {{ type: "gaussian" std: 1 }}
    data_filler {{ type: "uniform" min: 0 max: 999.99 }}
  }}""")


def conv(name, bottom, outputs, kernel, stride=1, pad=0, group=1, bias=True, std=None):
    filler = f'type: "gaussian" std: {std}' if std else 'type: "msra"'
    params = '  param { lr_mult: 1 decay_mult: 1 }\n'
    if bias:
        params += '  param { lr_mult: 2 decay_mult: 0 }\n'
    extra = f"    group: {group}\n" if group > 1 else ""
    extra += "" if bias else "    bias_term: false\n"
    bias_filler = '    bias_filler { type: "constant" value: 0 }\n' if bias else ""
    return block("Convolution", name, [bottom], [name], f"""{params}  convolution_param {{
    num_output: {outputs}
    kernel_size: {kernel}
    stride: {stride}
    pad: {pad}
{extra}    weight_filler {{ {filler} }}
{bias_filler}  }}""")


def relu(name, blob):
    return block("ReLU", name, [blob], [blob])


def pool(name, bottom, method, kernel, stride):
    return block("Pooling", name, [bottom], [name], f"""  pooling_param {{
    pool: {method}
    kernel_size: {kernel}
    stride: {stride}
  }}""")


def fc(name, bottom, outputs, std):
    return block("InnerProduct", name, [bottom], [name], f"""  param {{ lr_mult: 1 decay_mult: 1 }}
  param {{ lr_mult: 2 decay_mult: 0 }}
  inner_product_param {{
    num_output: {outputs}
    weight_filler {{ type: "gaussian" std: {std} }}
    bias_filler {{ type: "constant" value: 0 }}
  }}""")


def loss(bottom):
    return block("SoftmaxWithLoss", "loss", [bottom, "label"], ["loss"])


def alexnet(batch=256):
    s = f'name: "AlexNet"\n' + dummy_data(batch, 3, 227)
    s += conv("conv1", "data", 96, 11, stride=4, std=0.01) + relu("relu1", "conv1")
    s += block("LRN", "norm1", ["conv1"], ["norm1"], "  lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }")
    s += pool("pool1", "norm1", "MAX", 3, 2)
    s += conv("conv2", "pool1", 256, 5, pad=2, group=2, std=0.01) + relu("relu2", "conv2")
    s += block("LRN", "norm2", ["conv2"], ["norm2"], "  lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }")
    s += pool("pool2", "norm2", "MAX", 3, 2)
    s += conv("conv3", "pool2", 384, 3, pad=1, std=0.01) + relu("relu3", "conv3")
    s += conv("conv4", "conv3", 384, 3, pad=1, group=2, std=0.01) + relu("relu4", "conv4")
    s += conv("conv5", "conv4", 256, 3, pad=1, group=2, std=0.01) + relu("relu5", "conv5")
    s += pool("pool5", "conv5", "MAX", 3, 2)
    for name, bottom, outputs, std in (("fc6", "pool5", 4096, 0.005), ("fc7", "fc6", 4096, 0.005)):
        s += fc(name, bottom, outputs, std) + relu("relu" + name[2:], name)
        s += block("Dropout", "drop" + name[2:], [name], [name], "  dropout_param { dropout_ratio: 0.5 }")
    s += fc("fc8", "fc7", 1000, 0.01) + loss("fc8")
    return s


def conv_bn(name, bottom, outputs, kernel, stride=1, pad=0, activate=True):
    """A bias-free convolution, BatchNorm and Scale in place, and optionally a ReLU."""
    s = conv(name, bottom, outputs, kernel, stride=stride, pad=pad, bias=False)
    s += block("BatchNorm", "bn_" + name, [name], [name])
    s += block("Scale", "scale_" + name, [name], [name], "  scale_param { bias_term: true }")
    if activate:
        s += relu(name + "_relu", name)
    return s


def bottleneck(stage, letter, bottom, width, stride, project):
    """One residual block: 1x1 (stride), 3x3, 1x1 (4x width), plus the identity or a projection."""
    base = f"res{stage}{letter}"
    s = ""
    shortcut = bottom
    if project:
        s += conv_bn(base + "_branch1", bottom, 4 * width, 1, stride=stride, activate=False)
        shortcut = base + "_branch1"
    s += conv_bn(base + "_branch2a", bottom, width, 1, stride=stride)
    s += conv_bn(base + "_branch2b", base + "_branch2a", width, 3, pad=1)
    s += conv_bn(base + "_branch2c", base + "_branch2b", 4 * width, 1, activate=False)
    s += block("Eltwise", base, [shortcut, base + "_branch2c"], [base])
    s += relu(base + "_relu", base)
    return s, base


def resnet50(batch=64):
    s = 'name: "ResNet-50"\n' + dummy_data(batch, 3, 224)
    s += conv_bn("conv1", "data", 64, 7, stride=2, pad=3)
    s += pool("pool1", "conv1", "MAX", 3, 2)
    top = "pool1"
    for stage, (blocks, width) in enumerate(((3, 64), (4, 128), (6, 256), (3, 512)), start=2):
        for i in range(blocks):
            stride = 2 if i == 0 and stage > 2 else 1
            text, top = bottleneck(stage, "abcdef"[i], top, width, stride, project=(i == 0))
            s += text
    s += pool("pool5", top, "AVE", 7, 1)
    s += fc("fc1000", "pool5", 1000, 0.01) + loss("fc1000")
    return s


if __name__ == "__main__":
    # No options: --help says what it writes, and any argument is refused before a file is touched.
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Rewrites alexnet.prototxt and "
                            "resnet50.prototxt beside this script.").parse_args()
    here = pathlib.Path(__file__).resolve().parent
    (here / "alexnet.prototxt").write_text(alexnet())
    (here / "resnet50.prototxt").write_text(resnet50())
