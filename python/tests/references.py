"""NumPy references of the forward operators, in float64, MXNet's semantics."""
import ast
import math

import numpy as np


def _f32(text):
    """A parameter declared `float` (float32), as the operator holds it."""
    return float(np.float32(float(text)))


def _tuple(text):
    value = ast.literal_eval(text)
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _flag(params, key, default=False):
    return params.get(key, str(default)).lower() in ("true", "1")


def _softmax(x, params, log):
    axis = int(params.get("axis", -1))
    t = params.get("temperature", "None")
    x = x / (1.0 if t == "None" else float(t))
    shifted = x - x.max(axis=axis, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    out = shifted - log_sum if log else np.exp(shifted - log_sum)
    return out.astype(params["dtype"]) if params.get("dtype", "None") != "None" else out


def _masked_softmax(x, length=None, params=None):
    """softmax; with use_length, each line's first length elements, the rest 0."""
    if length is None:
        return _softmax(x, params, log=False)
    axis = int(params.get("axis", -1)) % x.ndim
    position = np.arange(x.shape[axis]).reshape([-1 if a == axis else 1 for a in range(x.ndim)])
    valid = position < np.expand_dims(length, axis)
    t = params.get("temperature", "None")
    z = np.where(valid, x / (1.0 if t == "None" else float(t)), -np.inf)
    e = np.where(valid, np.exp(z - z.max(axis=axis, keepdims=True, initial=-np.inf,
                                         where=valid)), 0)
    return e / np.maximum(e.sum(axis=axis, keepdims=True), np.finfo(x.dtype).tiny)


def _reduce(fn):
    def reduce(x, params):
        axis = params.get("axis", "None")
        every = axis in ("None", "()")  # both reduce every axis, exclude or not
        axes = tuple(range(x.ndim)) if every else tuple(a % x.ndim for a in _tuple(axis))
        if _flag(params, "exclude") and not every:
            axes = tuple(a for a in range(x.ndim) if a not in axes)
        y = fn(x, axis=axes, keepdims=_flag(params, "keepdims"))
        return np.reshape(y, (1,)) if np.ndim(y) == 0 else y
    return reduce


def _norm(x, params):
    ord1 = params.get("ord", "2") == "1"
    return _reduce(lambda v, **kw: np.sum(np.abs(v), **kw) if ord1
                   else np.sqrt(np.sum(v * v, **kw)))(x, params)


def _reshape(x, params):
    if "shape" not in params:  # the deprecated target_shape: one 0 inferred
        target = list(_tuple(params["target_shape"]))
        if _flag(params, "keep_highest"):
            target[0] = x.shape[0]
        return x.reshape([-1 if t == 0 else t for t in target])
    reverse = _flag(params, "reverse")
    dims = x.shape[::-1] if reverse else x.shape
    spec = _tuple(params["shape"])[::-1] if reverse else _tuple(params["shape"])
    out, src = [], 0
    for p in spec:  # the special values the case table uses: 0, -1, -3
        if p == 0:
            out.append(dims[src]); src += 1
        elif p == -3:
            out.append(dims[src] * dims[src + 1]); src += 2
        else:
            out.append(p); src += 1
    return x.reshape(out[::-1] if reverse else out)


def _fully_connected(x, w, b=None, params=None):
    if _flag(params, "flatten", True):
        x = x.reshape(x.shape[0], -1)
    y = x @ w.T
    return y + b if b is not None else y


def _spatial(params, key, nd, fill):
    return _tuple(params[key]) if params.get(key, "()") != "()" else (fill,) * nd


def _convolution(x, w, b=None, params=None):
    """Direct convolution: a sum over kernel taps of strided, dilated views of the padded
    input, one einsum per tap and group."""
    kernel = _tuple(params["kernel"])
    nd = len(kernel)
    stride, dilate = _spatial(params, "stride", nd, 1), _spatial(params, "dilate", nd, 1)
    pad = _spatial(params, "pad", nd, 0)
    groups = int(params.get("num_group", 1))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [(xp.shape[2 + a] - dilate[a] * (kernel[a] - 1) - 1) // stride[a] + 1
           for a in range(nd)]
    cg, fg = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0]) + tuple(out))
    for tap in np.ndindex(*kernel):
        window = (slice(None), slice(None)) + tuple(
            slice(tap[a] * dilate[a], tap[a] * dilate[a] + stride[a] * (out[a] - 1) + 1,
                  stride[a]) for a in range(nd))
        view = xp[window]
        for g in range(groups):
            y[:, g * fg:(g + 1) * fg] += np.einsum(
                "nc...,fc->nf...", view[:, g * cg:(g + 1) * cg],
                w[(slice(g * fg, (g + 1) * fg), slice(None)) + tap])
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def _deformable_convolution(x, offset, w, b=None, params=None, mask=None):
    """Each tap's bilinear samples at its offset grid points (vectorized over positions), times
    its mask where there is one (the modulated operator, whose samples read the border as
    MXNet's do there), then a sum over taps and groups as in _convolution."""
    kh, kw = _tuple(params["kernel"])
    stride, dilate = _spatial(params, "stride", 2, 1), _spatial(params, "dilate", 2, 1)
    pad = _spatial(params, "pad", 2, 0)
    groups, dgroups = int(params.get("num_group", 1)), int(params.get("num_deformable_group", 1))
    n, c, h, wd = x.shape
    ho, wo = offset.shape[2], offset.shape[3]
    cols = np.zeros((n, c, kh * kw, ho, wo))
    gy0 = np.arange(ho)[:, None] * stride[0] - pad[0]
    gx0 = np.arange(wo)[None, :] * stride[1] - pad[1]
    for k in range(kh * kw):
        for ch in range(c):
            g = ch // (c // dgroups)
            y = gy0 + (k // kw) * dilate[0] + offset[:, 2 * (g * kh * kw + k)].astype(np.float64)
            xx = gx0 + (k % kw) * dilate[1] + offset[:, 2 * (g * kh * kw + k) + 1].astype(np.float64)
            if mask is None:
                inside = (y >= 0) & (xx >= 0) & (y < h) & (xx < wd)
                # MXNet's CPU build: the last row (column) is read whole
                y, xx = np.where(y >= h - 1, h - 1, y), np.where(xx >= wd - 1, wd - 1, xx)
            else:  # a point within a pixel outside reads its neighbours inside
                inside = (y > -1) & (xx > -1) & (y < h) & (xx < wd)
            y0, x0 = np.floor(y), np.floor(xx)
            value = np.zeros_like(y)
            for dy in (0, 1):
                for dx in (0, 1):
                    r, q = y0 + dy, x0 + dx
                    weight = (1 - np.abs(y - r)) * (1 - np.abs(xx - q))
                    ok = inside & (r >= 0) & (q >= 0) & (r < h) & (q < wd)
                    rows, columns = np.clip(r, 0, h - 1).astype(int), np.clip(q, 0, wd - 1).astype(int)
                    picked = x[np.arange(n)[:, None, None], ch, rows, columns]
                    value += np.where(ok, weight * picked, 0)
            cols[:, ch, k] = value if mask is None else value * mask[:, g * kh * kw + k]
    cg, fg = c // groups, w.shape[0] // groups
    out = np.zeros((n, w.shape[0], ho, wo))
    for g in range(groups):
        out[:, g * fg:(g + 1) * fg] = np.einsum(
            "nckyx,fck->nfyx", cols[:, g * cg:(g + 1) * cg],
            w[g * fg:(g + 1) * fg].reshape(fg, cg, kh * kw))
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(x.dtype)


def _modulated_deformable_convolution(x, offset, mask, w, b=None, params=None):
    return _deformable_convolution(x, offset, w, b, params, mask=mask.astype(np.float64))


def _deconvolution(x, w, b=None, params=None):
    """Each input element scattered through each kernel tap into an output padded by pad on
    both sides (and adj, or target_shape's pad and adj), then cropped."""
    kernel = _tuple(params["kernel"])
    nd = len(kernel)
    stride, dilate = _spatial(params, "stride", nd, 1), _spatial(params, "dilate", nd, 1)
    pad, adj = _spatial(params, "pad", nd, 0), _spatial(params, "adj", nd, 0)
    full = [stride[a] * (x.shape[2 + a] - 1) + dilate[a] * (kernel[a] - 1) + 1
            for a in range(nd)]
    if "target_shape" in params:
        target = _tuple(params["target_shape"])
        pad = [(full[a] - target[a] + 1) // 2 for a in range(nd)]
        adj = [(full[a] - target[a]) % 2 for a in range(nd)]
    groups = int(params.get("num_group", 1))
    cg, fg = x.shape[1] // groups, w.shape[1]
    y = np.zeros((x.shape[0], fg * groups) + tuple(full[a] + adj[a] for a in range(nd)))
    for tap in np.ndindex(*kernel):
        spatial = tuple(
            slice(tap[a] * dilate[a], tap[a] * dilate[a] + stride[a] * (x.shape[2 + a] - 1) + 1,
                  stride[a]) for a in range(nd))
        for g in range(groups):
            y[(slice(None), slice(g * fg, (g + 1) * fg)) + spatial] += np.einsum(
                "nc...,cf->nf...", x[:, g * cg:(g + 1) * cg],
                w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap])
    crop = (slice(None), slice(None)) + tuple(
        slice(pad[a], pad[a] + full[a] + adj[a] - 2 * pad[a]) for a in range(nd))
    y = y[crop]
    if b is not None and not _flag(params, "no_bias", True):
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def _pooling(x, params):
    """Each window of the input padded with NaN: NaN counts towards avg's divisor only with
    count_include_pad; windows end where the padded input ends (full convention)."""
    nd = x.ndim - 2
    pool_type = params.get("pool_type", "max")
    if _flag(params, "global_pool"):
        kernel, stride, pad = x.shape[2:], (1,) * nd, (0,) * nd
    else:
        kernel = _tuple(params["kernel"])
        stride, pad = _spatial(params, "stride", nd, 1), _spatial(params, "pad", nd, 0)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in pad], constant_values=np.nan)
    full = params.get("pooling_convention", "valid") == "full"
    out = [-(-(xp.shape[2 + a] - kernel[a]) // stride[a]) + 1 if full
           else (xp.shape[2 + a] - kernel[a]) // stride[a] + 1 for a in range(nd)]
    p = int(params.get("p_value", 0) if params.get("p_value", "None") != "None" else 0)
    include_pad = _flag(params, "count_include_pad", True)
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in np.ndindex(*out):
        window = xp[(slice(None), slice(None)) + tuple(
            slice(o[a] * stride[a], o[a] * stride[a] + kernel[a]) for a in range(nd))]
        window = window.reshape(x.shape[:2] + (-1,))
        if pool_type == "max":
            v = np.nanmax(window, axis=-1)
        elif pool_type == "avg":
            count = window.shape[-1] if include_pad else np.sum(~np.isnan(window), axis=-1)
            v = np.nansum(window, axis=-1) / count
        elif pool_type == "sum":
            v = np.nansum(window, axis=-1)
        else:
            v = np.cbrt(np.nansum(window ** 3, axis=-1)) if p == 3 else \
                np.nansum(window ** p, axis=-1) ** (1.0 / p)
        y[(slice(None), slice(None)) + o] = v
    return y


def _batch_norm(x, gamma, beta, moving_mean, moving_var, params):
    """Inference (the tests call it so): the moving statistics normalize."""
    axis = int(params.get("axis", 1)) % x.ndim
    shape = [1] * x.ndim
    shape[axis] = -1
    if _flag(params, "fix_gamma", True):
        gamma = np.ones_like(gamma)
    invstd = 1 / np.sqrt(moving_var + float(params.get("eps", 1e-3)))
    return ((x - moving_mean.reshape(shape)) * (gamma * invstd).reshape(shape)
            + beta.reshape(shape))


def _layer_norm(x, gamma, beta, params):
    axis = int(params.get("axis", -1)) % x.ndim
    shape = [1] * x.ndim
    shape[axis] = -1
    eps = _f32(params.get("eps", 1e-5))
    mean, var = x.mean(axis=axis, keepdims=True), x.var(axis=axis, keepdims=True)
    std = np.sqrt(var + eps)
    out = (x - mean) / std * gamma.reshape(shape) + beta.reshape(shape)
    if _flag(params, "output_mean_var"):  # mean and std shaped like x with axis of extent 1
        return [out, mean, std]
    return out


def _l2_normalization(x, params):
    mode = params.get("mode", "instance")
    if mode == "channel":
        axes = (1,)
    else:
        axes = tuple(range(1 if mode == "instance" else 2, x.ndim))
    eps = _f32(params.get("eps", 1e-10))
    return x / np.sqrt(np.sum(x * x, axis=axes, keepdims=True) + eps)


def _lrn(x, params):
    """Across channels; the window (nsize - 1) // 2 each side, scaled by alpha / nsize."""
    n, half = int(params["nsize"]), (int(params["nsize"]) - 1) // 2
    alpha, beta = _f32(params.get("alpha", 1e-4)), _f32(params.get("beta", 0.75))
    knorm = _f32(params.get("knorm", 2))
    sq = np.pad(x * x, [(0, 0), (half, half)] + [(0, 0)] * (x.ndim - 2))
    window = sum(sq[:, i:i + x.shape[1]] for i in range(2 * half + 1))
    return x * (knorm + alpha / n * window) ** -beta


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _rnn(data, parameters, state, *rest):
    """MXNet's fused RNN: weights of every layer and direction [Wx, Wh], then the biases
    [bx, bh] in the same order; gates LSTM i, f, g, o and GRU r, z, n."""
    p = rest[-1]
    cell0 = rest[0] if len(rest) == 2 else None
    mode, hidden, layers = p["mode"], int(p["state_size"]), int(p["num_layers"])
    directions = 2 if _flag(p, "bidirectional") else 1
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    width = gates * hidden
    weights, biases = [], []
    at = 0
    for layer in range(layers):
        inputs = data.shape[2] if layer == 0 else directions * hidden
        for _ in range(directions):
            wx = parameters[at:at + width * inputs].reshape(width, inputs)
            at += width * inputs
            wh = parameters[at:at + width * hidden].reshape(width, hidden)
            at += width * hidden
            weights.append((wx, wh))
    for _ in range(layers * directions):
        biases.append((parameters[at:at + width], parameters[at + width:at + 2 * width]))
        at += 2 * width
    x, hy, cy = data, [], []
    for layer in range(layers):
        outputs = []
        for d in range(directions):
            unit = layer * directions + d
            (wx, wh), (bx, bh) = weights[unit], biases[unit]
            h = state[unit]
            c = cell0[unit] if cell0 is not None else None
            ys = [None] * x.shape[0]
            steps = range(x.shape[0]) if d == 0 else reversed(range(x.shape[0]))
            for t in steps:
                a, r = x[t] @ wx.T + bx, h @ wh.T + bh
                if mode == "rnn_relu":
                    h = np.maximum(a + r, 0)
                elif mode == "rnn_tanh":
                    h = np.tanh(a + r)
                elif mode == "lstm":
                    i, f, g, o = np.split(a + r, 4, axis=1)
                    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                    h = _sigmoid(o) * np.tanh(c)
                else:
                    ar, az, an = np.split(a, 3, axis=1)
                    rr, rz, rn = np.split(r, 3, axis=1)
                    reset, update = _sigmoid(ar + rr), _sigmoid(az + rz)
                    h = (1 - update) * np.tanh(an + reset * rn) + update * h
                ys[t] = h
            outputs.append(np.stack(ys))
            hy.append(h)
            cy.append(c)
        x = np.concatenate(outputs, axis=2)
    if not _flag(p, "state_outputs"):
        return x
    if mode == "lstm":
        return [x, np.stack(hy), np.stack(cy)]
    return [x, np.stack(hy)]


def _group_norm(x, gamma, beta, params, groups, eps):
    """Each sample's channels in `groups` groups, each normalized; gamma, beta per group."""
    lines = x.reshape(x.shape[0], groups, -1)
    mean, var = lines.mean(axis=-1, keepdims=True), lines.var(axis=-1, keepdims=True)
    std = np.sqrt(var + _f32(eps))
    out = ((lines - mean) / std * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1))
    out = out.reshape(x.shape)
    if _flag(params, "output_mean_var"):
        return [out, mean.reshape(x.shape[0], groups), std.reshape(x.shape[0], groups)]
    return out


def _embedding(data, weight, params):
    """Rows of weight; indices truncated and clipped to [0, input_dim), as MXNet's."""
    rows = np.clip(np.trunc(data), 0, weight.shape[0] - 1).astype(int)
    return weight[rows]


def _dot(a, b, params, batch):
    if _flag(params, "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if _flag(params, "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b) if batch else np.dot(a, b)


def _slice_axis(x, params):
    axis = int(params["axis"]) % x.ndim
    end = params["end"]
    index = [slice(None)] * x.ndim
    index[axis] = slice(int(params["begin"]), None if end == "None" else int(end))
    return x[tuple(index)]


def _pad(x, params):
    width = _tuple(params["pad_width"])
    pairs = [(width[2 * d], width[2 * d + 1]) for d in range(x.ndim)]
    mode = params.get("mode", "constant")
    if mode == "constant":
        return np.pad(x, pairs, mode="constant",
                      constant_values=float(params.get("constant_value", 0)))
    return np.pad(x, pairs, mode=mode)  # NumPy's edge and reflect are MXNet's


def _slice_index(params):
    begin, end = _tuple(params["begin"]), _tuple(params["end"])
    step = _tuple(params.get("step", "()"))
    return tuple(slice(b, e, step[d] if step else None) for d, (b, e) in enumerate(zip(begin, end)))


def _slice(x, params):
    return x[_slice_index(params)]


def _slice_assign(lhs, rhs, params):
    out = lhs.copy()
    out[_slice_index(params)] = rhs
    return out


def _slice_assign_scalar(lhs, params):
    out = lhs.copy()
    out[_slice_index(params)] = float(params.get("scalar", 0))
    return out


def _sgd(weight, grad, params, mom=None):
    lr, wd = _f32(params["lr"]), _f32(params.get("wd", 0))
    g = grad * _f32(params.get("rescale_grad", 1))
    clip = _f32(params.get("clip_gradient", -1))
    if clip >= 0:
        g = np.clip(g, -clip, clip)
    if mom is None:
        return weight - lr * (g + wd * weight)
    mom = _f32(params.get("momentum", 0)) * mom - lr * (g + wd * weight)
    return weight + mom


def _multi_sgd(momentum, mp, preloaded):
    """multi_sgd_update and its forms: each weight's _sgd with its own lr and wd."""
    def run(*args):
        *arrays, p = args
        n, k = int(p.get("num_weights", 1)), 2 + momentum + mp
        if preloaded:
            lrs, wds = arrays[n * k], arrays[n * k + 1]
        else:
            lrs, wds = ([float(v) for v in p[key].strip("()[]").split(",") if v.strip()]
                        for key in ("lrs", "wds"))
        outputs = []
        for i in range(n):
            group = arrays[i * k:(i + 1) * k]
            params = dict(p, lr=lrs[i], wd=wds[i])
            weight = group[-1] if mp else group[0]
            step = _sgd(weight, group[1], params, mom=group[2] if momentum else None)
            outputs.append(step.astype(group[0].dtype))
        return outputs
    return run


def _nag(weight, grad, mom, params):
    g = _clip(grad * _f32(params.get("rescale_grad", 1)), _f32(params.get("clip_gradient", -1)))
    step = _f32(params["lr"]) * (g + _f32(params.get("wd", 0)) * weight)
    momentum = _f32(params.get("momentum", 0))
    mom = momentum * mom - step
    return weight + momentum * mom - step


def _mp(update):
    """A multi-precision update: the rule on the float32 master weight (the last input), the
    result in the weight's type."""
    def run(weight, grad, *state_and_params):
        *state, weight32, params = state_and_params
        return update(weight32, grad, *state, params).astype(weight.dtype)
    return run


def _ctc_loss(data, label, *rest):
    """-log p(label | data) per sample by the forward (alpha) recursion in probabilities;
    0 where no alignment fits, as MXNet."""
    *lengths, p = rest
    blank_first = p.get("blank_label", "first") == "first"
    use_data, use_label = (p.get(k, "False") == "True"
                           for k in ("use_data_lengths", "use_label_lengths"))
    data_lengths = lengths.pop(0) if use_data else None
    label_lengths = lengths.pop(0) if use_label else None
    T, N, C = data.shape
    blank, padding = (0, 0) if blank_first else (C - 1, -1)
    probs = np.exp(data - data.max(axis=2, keepdims=True))
    probs /= probs.sum(axis=2, keepdims=True)
    loss = np.zeros(N)
    for n in range(N):
        labels = [int(v) for v in label[n]]
        if use_label:
            labels = labels[:int(label_lengths[n])]
        elif padding in labels:
            labels = labels[:labels.index(padding)]
        ext = [blank]
        for v in labels:
            ext += [v, blank]
        steps = int(data_lengths[n]) if use_data else T
        alpha = np.zeros(len(ext))
        if steps == 0:
            continue
        alpha[:2] = [probs[0, n, c] for c in ext[:2]]
        for t in range(1, steps):
            new = alpha.copy()
            new[1:] += alpha[:-1]
            for s in range(2, len(ext)):
                if ext[s] != blank and ext[s] != ext[s - 2]:
                    new[s] += alpha[s - 2]
            alpha = new * probs[t, n, ext]
        likelihood = alpha[-2:].sum()
        loss[n] = -np.log(likelihood) if likelihood > 0 else 0.0
    return loss


def _clip(x, bound):
    return x if bound < 0 else np.clip(x, -bound, bound)


def _decayed_gradient(weight, grad, params):
    """Adam's and RMSProp's gradient: weight decay added before clipping."""
    g = grad * _f32(params.get("rescale_grad", 1)) + _f32(params.get("wd", 0)) * weight
    return _clip(g, _f32(params.get("clip_gradient", -1)))


def _adam(weight, grad, mean, var, p):
    g = _decayed_gradient(weight, grad, p)
    beta1, beta2 = _f32(p.get("beta1", 0.9)), _f32(p.get("beta2", 0.999))
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    return weight - _f32(p["lr"]) * mean / (np.sqrt(var) + _f32(p.get("epsilon", 1e-8)))


def _adamw(weight, grad, mean, var, rescale_grad, p):
    """MXNet's contrib adamw_update: decoupled weight decay; rescale_grad an input."""
    g = _clip(grad * rescale_grad[0], _f32(p.get("clip_gradient", -1)))
    beta1, beta2 = _f32(p.get("beta1", 0.9)), _f32(p.get("beta2", 0.999))
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    step = _f32(p["lr"]) * mean / (np.sqrt(var) + _f32(p.get("epsilon", 1e-8)))
    return weight - _f32(p["eta"]) * (step + _f32(p.get("wd", 0)) * weight)


def _mp_adamw(weight, grad, mean, var, weight32, rescale_grad, p):
    return _adamw(weight32, grad, mean, var, rescale_grad, p).astype(weight.dtype)


def _multi_adamw(mp):
    """_multi_adamw_update and its mp form: each weight's _adamw with its own lr, wd, eta."""
    def run(*args):
        *arrays, rescale_grad, p = args
        n, k = int(p.get("num_weights", 1)), 4 + mp
        lrs, wds, etas = ([float(v) for v in p[key].strip("()[]").split(",") if v.strip()]
                          for key in ("lrs", "wds", "etas"))
        outputs = []
        for i in range(n):
            weight, grad, mean, var = arrays[i * k:i * k + 4]
            params = dict(p, lr=lrs[i], wd=wds[i], eta=etas[i])
            master = arrays[i * k + 4] if mp else weight
            step = _adamw(master, grad, mean, var, rescale_grad, params)
            outputs.append(step.astype(weight.dtype))
        return outputs
    return run


def _multi_lamb(mp):
    """_multi_lamb_update and its mp form: each weight's two LAMB phases, r1 = ||weight||,
    r2 = ||g||."""
    def run(*args):
        *arrays, p = args
        n, k = int(p.get("num_tensors", 1)), 4 + mp
        lrs, wds, steps = ([float(v) for v in p[key].strip("()[]").split(",") if v.strip()]
                           for key in ("learning_rates", "wds", "step_count"))
        outputs = []
        for i in range(n):
            weight, grad, mean, var = arrays[i * k:i * k + 4]
            master = arrays[i * k + 4] if mp else weight
            g = _lamb_phase1(master, grad, mean, var, dict(p, wd=wds[i], t=int(steps[i])))
            r1 = np.sqrt(np.sum(master.astype(np.float64) ** 2)).astype(master.dtype)
            r2 = np.sqrt(np.sum(g.astype(np.float64) ** 2)).astype(g.dtype)
            step = _lamb_phase2(master, g, np.array([r1]), np.array([r2]), dict(p, lr=lrs[i]))
            outputs.append(step.astype(weight.dtype))
        return outputs
    return run


def _lamb_phase1(weight, grad, mean, var, p):
    g = _clip(grad * _f32(p.get("rescale_grad", 1)), _f32(p.get("clip_gradient", -1)))
    beta1, beta2 = _f32(p.get("beta1", 0.9)), _f32(p.get("beta2", 0.999))
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    if str(p.get("bias_correction", True)) != "False":
        t = int(p["t"])
        mean, var = mean / (1 - beta1 ** t), var / (1 - beta2 ** t)
    return mean / (np.sqrt(var) + _f32(p.get("epsilon", 1e-6))) + _f32(p["wd"]) * weight


def _lamb_phase2(weight, g, r1, r2, p):
    r1, r2 = r1[0], r2[0]
    lower, upper = _f32(p.get("lower_bound", -1)), _f32(p.get("upper_bound", -1))
    if lower >= 0:
        r1 = max(r1, lower)
    if upper >= 0:
        r1 = min(r1, upper)
    ratio = 1 if r1 == 0 or r2 == 0 else r1 / r2
    return weight - _f32(p["lr"]) * ratio * g


def _rmsprop(weight, grad, n, p):
    g = _decayed_gradient(weight, grad, p)
    gamma1 = _f32(p.get("gamma1", 0.95))
    n = gamma1 * n + (1 - gamma1) * g * g
    w = weight - _f32(p["lr"]) * g / np.sqrt(n + _f32(p.get("epsilon", 1e-8)))
    return _clip(w, _f32(p.get("clip_weights", -1)))


def _rmspropalex(weight, grad, n, g_avg, delta, p):
    g = _decayed_gradient(weight, grad, p)
    gamma1 = _f32(p.get("gamma1", 0.95))
    n = gamma1 * n + (1 - gamma1) * g * g
    g_avg = gamma1 * g_avg + (1 - gamma1) * g
    delta = _f32(p.get("gamma2", 0.9)) * delta - _f32(p["lr"]) * g / np.sqrt(
        n - g_avg * g_avg + _f32(p.get("epsilon", 1e-8)))
    return _clip(weight + delta, _f32(p.get("clip_weights", -1)))


def _ftml(weight, grad, d, v, z, p):
    p = dict(p, clip_gradient=p.get("clip_grad", -1))
    g = _decayed_gradient(weight, grad, p)
    beta1, beta2, t = _f32(p.get("beta1", 0.6)), _f32(p.get("beta2", 0.999)), int(p["t"])
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1 ** t) / _f32(p["lr"]) * (
        np.sqrt(v / (1 - beta2 ** t)) + float(p.get("epsilon", 1e-8)))
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
    return -z / d_t


def _ftrl(weight, grad, z, n, p):
    g = _clip(grad * _f32(p.get("rescale_grad", 1)), _f32(p.get("clip_gradient", -1)))
    lr, lamda1 = _f32(p["lr"]), _f32(p.get("lamda1", 0.01))
    z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * weight / lr
    n = n + g * g
    w = (np.sign(z) * lamda1 - z) / ((_f32(p.get("beta", 1)) + np.sqrt(n)) / lr +
                                     _f32(p.get("wd", 0)))
    return np.where(np.abs(z) > lamda1, w, 0)


def _multi_sum_sq(*arrays_and_params):
    arrays = arrays_and_params[:-1]
    return np.array([np.sum(np.square(a.astype(np.float64))) for a in arrays], np.float32)


def _multi_lars(lrs, w_sum_sq, g_sum_sq, wds, p):
    w = np.sqrt(w_sum_sq)
    g = np.sqrt(g_sum_sq) * _f32(p.get("rescale_grad", 1))
    ratio = _f32(p["eta"]) * w / (g + wds * w + _f32(p["eps"]))
    return lrs * np.where((w > 0) & (g > 0), ratio, 1)


def _roi_pooling(data, rois, p):
    """MXNet's ROIPooling: rounded corners, bin edges in float32 arithmetic, empty bins 0."""
    ph_n, pw_n = _tuple(p["pooled_size"])
    t = np.float32
    scale = t(p["spatial_scale"])
    n, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph_n, pw_n), data.dtype)
    for r, roi in enumerate(rois):
        if not 0 <= roi[0] < n:
            continue
        # Rounded half away from zero (C's round), not NumPy's half to even.
        x1, y1, x2, y2 = (int(np.copysign(np.floor(abs(t(v) * scale) + 0.5), v))
                          for v in roi[1:])
        bin_h = t(max(y2 - y1 + 1, 1)) / t(ph_n)
        bin_w = t(max(x2 - x1 + 1, 1)) / t(pw_n)

        def edges(k, size, start, limit):
            return (min(max(int(np.floor(t(k) * size)) + start, 0), limit),
                    min(max(int(np.ceil(t(k + 1) * size)) + start, 0), limit))

        for ph in range(ph_n):
            h0, h1 = edges(ph, bin_h, y1, h)
            for pw in range(pw_n):
                w0, w1 = edges(pw, bin_w, x1, w)
                if h1 > h0 and w1 > w0:
                    out[r, :, ph, pw] = data[int(roi[0]), :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _psroi_pooling(data, rois, p):
    """MXNet's PSROIPooling: rounded corners times the scale, at least 0.1 wide, float32 bin
    edges; bin (ph, pw) of output channel c averages data's channel for c at the bin's cell of
    the group grid."""
    t = np.float32
    scale, out_dim, pooled = t(p["spatial_scale"]), int(p["output_dim"]), int(p["pooled_size"])
    group = int(p.get("group_size", 0)) or pooled
    n, _, h, w = data.shape
    out = np.zeros((len(rois), out_dim, pooled, pooled), data.dtype)
    for r, roi in enumerate(rois):
        if not 0 <= roi[0] < n:
            continue
        x1, y1, x2, y2 = (t(np.copysign(np.floor(abs(t(v)) + t(0.5)), v)) for v in roi[1:])
        start_w, start_h = x1 * scale, y1 * scale
        size_w = max((x2 + t(1)) * scale - start_w, t(0.1)) / t(pooled)
        size_h = max((y2 + t(1)) * scale - start_h, t(0.1)) / t(pooled)
        for c in range(out_dim):
            for ph in range(pooled):
                h0 = min(max(int(np.floor(t(ph) * size_h + start_h)), 0), h)
                h1 = min(max(int(np.ceil(t(ph + 1) * size_h + start_h)), 0), h)
                for pw in range(pooled):
                    w0 = min(max(int(np.floor(t(pw) * size_w + start_w)), 0), w)
                    w1 = min(max(int(np.ceil(t(pw + 1) * size_w + start_w)), 0), w)
                    channel = (c * group + ph * group // pooled) * group + pw * group // pooled
                    if h1 > h0 and w1 > w0:
                        out[r, c, ph, pw] = data[int(roi[0]), channel, h0:h1, w0:w1].mean()
    return out


def _deformable_psroi_pooling(data, rois, *rest):
    """MXNet's DeformablePSROIPooling (its GPU kernel): corners rounded, scaled and shifted half a
    position back; each bin moved by its part's trans times trans_std and the region's extent,
    the mean of its samples within half a position of the map, clamped into it."""
    p = rest[-1]
    trans = None if _flag(p, "no_trans") else rest[0].astype(np.float64)
    scale, out_dim = float(np.float32(p["spatial_scale"])), int(p["output_dim"])
    group, pooled = int(p["group_size"]), int(p["pooled_size"])
    part = int(p.get("part_size", 0)) or pooled
    samples, trans_std = int(p.get("sample_per_part", 1)), float(np.float32(p.get("trans_std", 0)))
    n, _, h, w = data.shape
    classes = 1 if trans is None else trans.shape[1] // 2
    out = np.zeros((len(rois), out_dim, pooled, pooled))
    for r, roi in enumerate(rois.astype(np.float64)):
        if not 0 <= roi[0] < n:
            continue
        x1, y1, x2, y2 = (np.copysign(np.floor(abs(v) + 0.5), v) for v in roi[1:])
        start_w, start_h = x1 * scale - 0.5, y1 * scale - 0.5
        roi_w = max((x2 + 1) * scale - 0.5 - start_w, 0.1)
        roi_h = max((y2 + 1) * scale - 0.5 - start_h, 0.1)
        for c in range(out_dim):
            k = c // (out_dim // classes)
            for ph in range(pooled):
                for pw in range(pooled):
                    ws = start_w + pw * roi_w / pooled
                    hs = start_h + ph * roi_h / pooled
                    if trans is not None:
                        tx, ty = trans[r, 2 * k:2 * k + 2, ph * part // pooled, pw * part // pooled]
                        ws += tx * trans_std * roi_w
                        hs += ty * trans_std * roi_h
                    plane = data[int(roi[0]), (c * group + ph * group // pooled) * group
                                 + pw * group // pooled].astype(np.float64)
                    values = []
                    for ih in range(samples):
                        for iw in range(samples):
                            x = ws + iw * roi_w / pooled / samples
                            y = hs + ih * roi_h / pooled / samples
                            if x < -0.5 or x > w - 0.5 or y < -0.5 or y > h - 0.5:
                                continue
                            x, y = min(max(x, 0.0), w - 1.0), min(max(y, 0.0), h - 1.0)
                            x0, y0 = int(np.floor(x)), int(np.floor(y))
                            x1_, y1_ = int(np.ceil(x)), int(np.ceil(y))
                            dx, dy = x - x0, y - y0
                            top = (1 - dx) * plane[y0, x0] + dx * plane[y0, x1_]
                            bottom = (1 - dx) * plane[y1_, x0] + dx * plane[y1_, x1_]
                            values.append((1 - dy) * top + dy * bottom)
                    out[r, c, ph, pw] = np.mean(values) if values else 0.0
    return out.astype(data.dtype)


def _bilinear_at(plane, y, x):
    """A bilinear sample of a plane as ROIAlign takes it: 0 more than a position outside."""
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = min(int(y), h - 1), min(int(x), w - 1)
    y = y0 if y0 == h - 1 else y
    x = x0 if x0 == w - 1 else x
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * ((1 - lx) * plane[y0, x0] + lx * plane[y0, x1])
            + ly * ((1 - lx) * plane[y1, x0] + lx * plane[y1, x1]))


def _roi_align(data, rois, p):
    """MXNet's ROIAlign: each bin the mean of a grid of bilinear samples, no rounding."""
    ph_n, pw_n = _tuple(p["pooled_size"])
    scale, ratio = float(np.float32(p["spatial_scale"])), int(p.get("sample_ratio", -1))
    aligned, sensitive = _flag(p, "aligned"), _flag(p, "position_sensitive")
    n, c, h, w = data.shape
    c_out = c // (ph_n * pw_n) if sensitive else c
    out = np.zeros((len(rois), c_out, ph_n, pw_n))
    for r, roi in enumerate(rois.astype(np.float64)):
        if not 0 <= roi[0] < n:
            continue
        offset = 0.5 if aligned else 0.0
        x1, y1, x2, y2 = (v * scale - offset for v in roi[1:])
        rh, rw = y2 - y1, x2 - x1
        if not aligned:
            rh, rw = max(rh, 1.0), max(rw, 1.0)
        bh, bw = rh / ph_n, rw / pw_n
        gh = ratio if ratio > 0 else int(np.ceil(bh))
        gw = ratio if ratio > 0 else int(np.ceil(bw))
        for ch in range(c_out):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    plane = data[int(roi[0]), (ch * ph_n + ph) * pw_n + pw if sensitive else ch]
                    total = sum(_bilinear_at(plane, y1 + ph * bh + (iy + 0.5) * bh / gh,
                                             x1 + pw * bw + (ix + 0.5) * bw / gw)
                                for iy in range(gh) for ix in range(gw))
                    out[r, ch, ph, pw] = total / max(gh * gw, 1)
    return out.astype(data.dtype)


def _rroi_align(data, rois, p):
    """MXNet's RROIAlign: ROIAlign's bins about each region's centre, their samples turned by
    theta degrees about it; width and height at least 1."""
    ph_n, pw_n = _tuple(p["pooled_size"])
    scale, ratio = float(np.float32(p["spatial_scale"])), int(p.get("sampling_ratio", -1))
    n, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph_n, pw_n))
    for r, roi in enumerate(rois.astype(np.float64)):
        if not 0 <= roi[0] < n:
            continue
        cx, cy = roi[1] * scale, roi[2] * scale
        rw, rh = max(roi[3] * scale, 1.0), max(roi[4] * scale, 1.0)
        cos, sin = np.cos(np.radians(roi[5])), np.sin(np.radians(roi[5]))
        bh, bw = rh / ph_n, rw / pw_n
        gh = ratio if ratio > 0 else int(np.ceil(bh))
        gw = ratio if ratio > 0 else int(np.ceil(bw))
        for ch in range(c):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    total = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            yy = -rh / 2 + ph * bh + (iy + 0.5) * bh / gh
                            xx = -rw / 2 + pw * bw + (ix + 0.5) * bw / gw
                            total += _bilinear_at(data[int(roi[0]), ch], yy * cos - xx * sin + cy,
                                                  xx * cos + yy * sin + cx)
                    out[r, ch, ph, pw] = total / (gh * gw)
    return out.astype(data.dtype)


def _unit_positions(n):
    return -1 + np.arange(n) * (2.0 / (n - 1))


def _grid_generator(data, p):
    if p["transform_type"] == "warp":
        _, _, h, w = data.shape
        x = (data[:, 0] + np.arange(w)) / ((w - 1) / 2) - 1
        y = (data[:, 1] + np.arange(h)[:, None]) / ((h - 1) / 2) - 1
        return np.stack([x, y], axis=1)
    h, w = _tuple(p["target_shape"])
    x, y = np.meshgrid(_unit_positions(w), _unit_positions(h))
    positions = np.stack([x.ravel(), y.ravel(), np.ones(h * w)])
    return (data.reshape(-1, 2, 3) @ positions).reshape(-1, 2, h, w)


def _bilinear_sampler(data, grid, p):
    n, c, h, w = data.shape
    x = (grid[:, 0] + 1) * (w - 1) / 2
    y = (grid[:, 1] + 1) * (h - 1) / 2
    x0, y0 = np.floor(x), np.floor(y)
    out = np.zeros((n, c) + grid.shape[2:], data.dtype)
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = (y0 + dy).astype(int), (x0 + dx).astype(int)
        weight = (1 - np.abs(y - yy)) * (1 - np.abs(x - xx))
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        for b in range(n):
            values = data[b][:, np.clip(yy[b], 0, h - 1), np.clip(xx[b], 0, w - 1)]
            out[b] += values * (weight[b] * inside[b])
    return out


def _spatial_transformer(data, loc, p):
    grid = _grid_generator(loc, {"transform_type": "affine", "target_shape": p["target_shape"]})
    return _bilinear_sampler(data, grid, p)


def _gemm(a, b, c, p):
    axis = int(p.get("axis", -2)) % a.ndim
    a, b = np.swapaxes(a, axis, -2), np.swapaxes(b, axis, -2)
    if str(p.get("transpose_a", False)) == "True":
        a = np.swapaxes(a, -1, -2)
    if str(p.get("transpose_b", False)) == "True":
        b = np.swapaxes(b, -1, -2)
    out = float(p.get("alpha", 1)) * np.swapaxes(a @ b, axis, -2)
    return out if c is None else out + float(p.get("beta", 1)) * c


def _ravel(data, p):
    return np.ravel_multi_index(tuple(data.astype(np.int64)), _tuple(p["shape"])).astype(data.dtype)


def _unravel(data, p):
    return np.array(np.unravel_index(data.astype(np.int64), _tuple(p["shape"]))).astype(data.dtype)


def _triangle(n, p):
    """The rows and columns of the triangle `p` names, in packing order, and whether it is a lower
    one: an upper triangle is packed as the lower one of the transpose (column by column)."""
    offset = int(p.get("offset", 0))
    lower = offset < 0 or (offset == 0 and _flag(p, "lower", True))
    return np.tril_indices(n, k=offset if lower else -offset), lower


def _extracttrian(a, p):
    (rows, cols), lower = _triangle(a.shape[-1], p)
    return (a if lower else np.swapaxes(a, -1, -2))[..., rows, cols]


def _maketrian(a, p):
    offset = abs(int(p.get("offset", 0)))
    side = int(round((np.sqrt(8 * a.shape[-1] + 1) - 1) / 2))
    (rows, cols), lower = _triangle(side + offset, p)
    out = np.zeros(a.shape[:-1] + (side + offset, side + offset), a.dtype)
    out[..., rows, cols] = a
    return out if lower else np.swapaxes(out, -1, -2)


def _makediag(a, p):
    offset = int(p.get("offset", 0))
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    rows = np.arange(a.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = a
    return out


def _triangular_operand(a, p):
    """op(A) of trmm and trsm: A's lower (or upper) triangle, transposed with `transpose`."""
    t = np.tril(a) if _flag(p, "lower", True) else np.triu(a)
    return np.swapaxes(t, -1, -2) if _flag(p, "transpose") else t


def _trmm(a, b, p):
    t, alpha = _triangular_operand(a, p), float(p.get("alpha", 1))
    return alpha * (b @ t if _flag(p, "rightside") else t @ b)


def _trsm(a, b, p):
    t, alpha = _triangular_operand(a, p), float(p.get("alpha", 1))
    if _flag(p, "rightside"):  # X t = alpha B, as t^T X^T = alpha B^T
        return np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), alpha * np.swapaxes(b, -1, -2)),
                           -1, -2)
    return np.linalg.solve(t, alpha * b)


def _syrk(a, p):
    at = np.swapaxes(a, -1, -2)
    return float(p.get("alpha", 1)) * (at @ a if _flag(p, "transpose") else a @ at)


def _symmetric_from_lower(a):
    return np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)


def _potri(a, p):
    lower = np.tril(a)
    return np.linalg.inv(lower @ np.swapaxes(lower, -1, -2))


def _syevd(a, p):
    """U (rows the eigenvectors, each with its largest-magnitude element positive) and L."""
    values, vectors = np.linalg.eigh(a, UPLO="L")
    u = np.swapaxes(vectors, -1, -2)
    largest = np.take_along_axis(u, np.abs(u).argmax(-1)[..., None], -1)
    return [u * np.where(largest < 0, -1, 1), values]


def _gelqf(a, p):
    """Q and L of A = L Q, from the QR factorization of A^T (both Householder's, LAPACK's)."""
    q, r = np.linalg.qr(np.swapaxes(a, -1, -2))
    return [np.swapaxes(q, -1, -2), np.swapaxes(r, -1, -2)]


def _window(p, spatial):
    """Per spatial axis: kernel, stride, dilate, pad (Convolution's defaults) and the number of
    window positions over extents `spatial`."""
    kernel = _tuple(p["kernel"])
    stride = _tuple(p.get("stride", "()")) or (1,) * len(kernel)
    dilate = _tuple(p.get("dilate", "()")) or (1,) * len(kernel)
    pad = _tuple(p.get("pad", "()")) or (0,) * len(kernel)
    out = tuple((x + 2 * q - d * (k - 1) - 1) // s + 1
                for x, k, s, d, q in zip(spatial, kernel, stride, dilate, pad))
    return kernel, stride, dilate, pad, out


def _tap_slices(p, spatial):
    """(tap index, slices of the padded image that tap reads at every window position)."""
    kernel, stride, dilate, pad, out = _window(p, spatial)
    for tap in np.ndindex(*kernel):
        yield tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                    for t, d, o, s in zip(tap, dilate, out, stride))


def _im2col(x, p):
    pad = _window(p, x.shape[2:])[3]
    padded = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in pad])
    taps = [padded[(Ellipsis,) + s] for s in _tap_slices(p, x.shape[2:])]
    blocks = np.stack(taps, axis=2)  # (N, C, K, out...)
    return blocks.reshape(x.shape[0], -1, int(np.prod(blocks.shape[3:])))


def _col2im(cols, p):
    spatial = _tuple(p["output_size"])
    kernel, _, _, pad, out = _window(p, spatial)
    n, taps = cols.shape[0], int(np.prod(kernel))
    blocks = cols.reshape((n, -1, taps) + out)
    padded = np.zeros((n, blocks.shape[1]) + tuple(x + 2 * q for x, q in zip(spatial, pad)),
                      cols.dtype)
    for k, s in enumerate(_tap_slices(p, spatial)):
        padded[(Ellipsis,) + s] += blocks[:, :, k]
    return padded[(Ellipsis,) + tuple(slice(q, q + x) for q, x in zip(pad, spatial))]


def _crop(x, *like_and_params):
    *like, p = like_and_params
    h, w = like[0].shape[2:4] if like else _tuple(p["h_w"])
    if _flag(p, "center_crop"):
        y0, x0 = (x.shape[2] - h) // 2, (x.shape[3] - w) // 2
    else:
        y0, x0 = _tuple(p.get("offset", "(0,0)"))
    return x[:, :, y0:y0 + h, x0:x0 + w]


def _heads(x, p, parts):
    """Interleaved projections (length, batch, heads * parts * head_dim) as (batch * heads,
    length, head_dim) matrices of each part."""
    heads = int(p["heads"])
    length, batch = x.shape[:2]
    x = x.reshape(length, batch, heads, parts, -1)
    return [x[:, :, :, part].transpose(1, 2, 0, 3).reshape(batch * heads, length, -1)
            for part in range(parts)]


def _attended(attention, v, p):
    """attention V per head, back in (queries, batch, heads * head_dim)."""
    heads = int(p["heads"])
    out = attention @ v
    return out.reshape(-1, heads, *out.shape[1:]).transpose(2, 0, 1, 3).reshape(
        out.shape[1], -1, heads * out.shape[2])


def _selfatt_qk(qkv, p):
    q, k, _ = _heads(qkv, p, 3)
    return q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])


def _encdec_qk(queries, kv, p):
    (q,), (k, _) = _heads(queries, p, 1), _heads(kv, p, 2)
    return q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])


def _bilinear_taps(n_in, n_out, align, dtype):
    """Per output position along an axis: the two inputs it reads and the second's weight."""
    if align:
        scale = dtype((n_in - 1) / (n_out - 1)) if n_out > 1 else dtype(0)
        real = scale * np.arange(n_out, dtype=dtype)
    else:
        real = np.maximum(dtype(n_in / n_out) * (np.arange(n_out, dtype=dtype) + dtype(0.5))
                          - dtype(0.5), 0)
    first = real.astype(np.int64)
    return first, first + (first < n_in - 1), (real - first).astype(dtype)


def _bilinear_resize(x, *like_and_params):
    *like, p = like_and_params
    mode = p.get("mode", "size")
    h, w = x.shape[2:]
    if mode == "like":
        oh, ow = like[0].shape[2:]
    elif mode == "size":
        oh = int(float(p["scale_height"]) * h) if "scale_height" in p else int(p.get("height", 1))
        ow = int(float(p["scale_width"]) * w) if "scale_width" in p else int(p.get("width", 1))
    else:
        step = {"to_even_down": lambda e: e - e % 2, "to_even_up": lambda e: e + e % 2,
                "to_odd_down": lambda e: e - 1 + e % 2, "to_odd_up": lambda e: e + 1 - e % 2}
        oh, ow = step[mode](h), step[mode](w)
    align = _flag(p, "align_corners", True)
    y0, y1, ly = _bilinear_taps(h, oh, align, x.dtype.type)
    x0, x1, lx = _bilinear_taps(w, ow, align, x.dtype.type)
    ly = ly[:, None]
    top, bottom = x[:, :, y0], x[:, :, y1]
    return ((1 - ly) * ((1 - lx) * top[..., x0] + lx * top[..., x1])
            + ly * ((1 - lx) * bottom[..., x0] + lx * bottom[..., x1]))


def _adaptive_avg_pooling(x, p):
    size = _tuple(p.get("output_size", "()")) or (1,)
    oh, ow = size[0], size[-1]
    h, w = x.shape[2:]
    out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * h // oh:-(-(i + 1) * h // oh),
                                j * w // ow:-(-(j + 1) * w // ow)].mean(axis=(2, 3))
    return out


def _khatri_rao(*matrices_and_params):
    *matrices, _ = matrices_and_params
    out = matrices[0]
    for m in matrices[1:]:
        out = (out[:, None, :] * m[None, :, :]).reshape(-1, m.shape[1])
    return out


def _correlation(a, b, p):
    """FlowNet's correlation as MXNet defines it: windows of the zero-padded maps starting at
    (i, j) * stride1 + max_displacement, data2's displaced by (dy, dx) * stride2."""
    k, md = int(p.get("kernel_size", 1)), int(p.get("max_displacement", 1))
    s1, s2, pad = int(p.get("stride1", 1)), int(p.get("stride2", 1)), int(p.get("pad_size", 0))
    multiply = _flag(p, "is_multiply", True)
    n, c, h, w = a.shape
    pa, pb = (np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)]) for x in (a, b))
    border = md + (k - 1) // 2
    oh = -(-(h + 2 * pad - 2 * border) // s1)
    ow = -(-(w + 2 * pad - 2 * border) // s1)
    r = md // s2
    out = np.zeros((n, (2 * r + 1) ** 2, oh, ow), a.dtype)
    for t in range((2 * r + 1) ** 2):
        dy, dx = (t // (2 * r + 1) - r) * s2, (t % (2 * r + 1) - r) * s2
        for i in range(oh):
            for j in range(ow):
                y, x = i * s1 + md, j * s1 + md
                u = pa[:, :, y:y + k, x:x + k]
                v = pb[:, :, y + dy:y + dy + k, x + dx:x + dx + k]
                out[:, t, i, j] = (u * v if multiply else np.abs(u - v)).sum(axis=(1, 2, 3))
    return out / (k * k * c)


def _multibox_prior(data, p):
    """SSD's anchors in float32, as MXNet computes them: every size with the first ratio, then
    the first size with the others, per position."""
    f = np.float32
    sizes, ratios = _tuple(p.get("sizes", "(1,)")), _tuple(p.get("ratios", "(1,)"))
    steps, offsets = _tuple(p.get("steps", "(-1,-1)")), _tuple(p.get("offsets", "(0.5,0.5)"))
    h, w = data.shape[2:]
    sy = f(steps[0]) if steps[0] > 0 else f(1) / f(h)
    sx = f(steps[1]) if steps[1] > 0 else f(1) / f(w)
    shapes = [(f(s), f(ratios[0])) for s in sizes] + [(f(sizes[0]), f(r)) for r in ratios[1:]]
    boxes = []
    for r in range(h):
        cy = (f(r) + f(offsets[0])) * sy
        for c in range(w):
            cx = (f(c) + f(offsets[1])) * sx
            for size, ratio in shapes:
                hw = size * f(h) / f(w) * np.sqrt(ratio) / f(2)
                hh = size / np.sqrt(ratio) / f(2)
                boxes.append([cx - hw, cy - hh, cx + hw, cy + hh])
    out = np.array(boxes, np.float32)[None]
    return (np.clip(out, 0, 1) if _flag(p, "clip") else out).astype(data.dtype)


def _centre_size(b):
    """(x, y, w, h) of corner boxes (..., 4)."""
    wh = b[..., 2:] - b[..., :2]
    return np.concatenate([b[..., :2] + wh / 2, wh], -1)


_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _negative_binomial_log_density(x, k, p):
    return (_lgamma(x + k) - _lgamma(x + 1) - _lgamma(k) + k * np.log(p) +
            x * np.log(1 - p))


# log p(x) of the _random_pdf_* distributions, by their definitions (MXNet's parameters).
_LOG_DENSITIES = {
    "uniform": lambda x, low, high: np.zeros_like(x) - np.log(high - low),
    "normal": lambda x, mu, sigma: (-(x - mu) ** 2 / (2 * sigma * sigma) -
                                    np.log(sigma * math.sqrt(2 * math.pi))),
    "gamma": lambda x, a, b: a * np.log(b) + (a - 1) * np.log(x) - b * x - _lgamma(a),
    "exponential": lambda x, lam: np.log(lam) - lam * x,
    "poisson": lambda x, lam: x * np.log(lam) - _lgamma(x + 1) - lam,
    "negative_binomial": _negative_binomial_log_density,
    "generalized_negative_binomial": lambda x, mu, alpha: _negative_binomial_log_density(
        x, 1 / alpha, 1 / (mu * alpha + 1)),
}


def _pdf(name):
    """The density of each sample under the distribution whose parameters lead its indices."""
    def density(sample, *rest):
        *parameters, p = rest
        shape = parameters[0].shape + (1,) * (sample.ndim - parameters[0].ndim)
        lp = _LOG_DENSITIES[name](sample, *[q.reshape(shape) for q in parameters])
        return lp if _flag(p, "is_log") else np.exp(lp)
    return density


def _pdf_dirichlet(sample, alpha, p):
    """Dirichlet densities of the k-vectors along the sample's last axis."""
    extra = (1,) * (sample.ndim - alpha.ndim)
    a = alpha.reshape(alpha.shape[:-1] + extra + alpha.shape[-1:])
    lp = ((a - 1) * np.log(sample)).sum(-1) + _lgamma(a.sum(-1)) - _lgamma(a).sum(-1)
    lp = np.reshape(lp, (1,)) if sample.ndim == 1 else lp
    return lp if _flag(p, "is_log") else np.exp(lp)


def _fill_element_0index(lhs, mhs, rhs, p):
    out = lhs.copy()
    out[np.arange(lhs.shape[0]), np.trunc(rhs).astype(np.int64)] = mhs
    return out


def _histogram(x, *rest):
    """NumPy's histogram: counts and edges, of bin_cnt bins over range or of given edges."""
    *bins, p = rest
    if bins:
        return list(np.histogram(x, bins=bins[0]))
    lo, hi = (_f32(str(v)) for v in _tuple(p["range"]))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return list(np.histogram(x, bins=int(p["bin_cnt"]), range=(lo, hi)))


def _hawkesll(mu, alpha, beta, state, lags, marks, valid_length, max_time, p):
    """Each sample's events in order: the log of its mark's intensity minus the compensators
    since each mark's last event, the compensators to max_time after; the states decayed."""
    n, k = mu.shape
    ll, states = np.zeros(n), state.astype(np.float64).copy()
    for i in range(n):
        last, s, t = np.zeros(k), states[i], 0.0
        for j in range(int(valid_length[i])):
            c = int(marks[i, j])
            t += lags[i, j]
            d = t - last[c]
            ed = np.exp(-beta[c] * d)
            ll[i] += np.log(mu[i, c] + alpha[c] * beta[c] * s[c] * ed)
            ll[i] -= mu[i, c] * d + alpha[c] * s[c] * (1 - ed)
            s[c], last[c] = 1 + s[c] * ed, t
        d = max_time[i] - last
        ed = np.exp(-beta * d)
        ll[i] -= np.sum(mu[i] * d + alpha * s * (1 - ed))
        s *= ed
    return [ll.astype(mu.dtype), states.astype(mu.dtype)]


def _fft(data, p):
    """NumPy's transform of the last axis, complex values interleaved."""
    y = np.fft.fft(data.astype(np.float64), axis=-1)
    return np.stack([y.real, y.imag], axis=-1).reshape(data.shape[:-1] + (-1,)).astype(data.dtype)


def _ifft(data, p):
    """The real part of NumPy's inverse transform of the interleaved complex rows, times d
    (MXNet's is unnormalized)."""
    z = data[..., 0::2].astype(np.float64) + 1j * data[..., 1::2].astype(np.float64)
    return (np.fft.ifft(z, axis=-1).real * z.shape[-1]).astype(data.dtype)


def _count_sketch(data, h, s, p):
    """y[..., k] = the sum of s[i] x[..., i] over the i with h[i] = k."""
    y = np.zeros(data.shape[:-1] + (int(p["out_dim"]),))
    for i, k in enumerate(np.trunc(h.ravel()).astype(np.int64)):
        y[..., k] += s.ravel()[i] * data[..., i]
    return y


def _box_encode(samples, matches, anchors, refs, means, stds, p):
    batch = np.arange(samples.shape[0])[:, None]
    positive = (samples > 0.5)[..., None]
    r = _centre_size(refs[batch, np.where(positive[..., 0], matches, 0).astype(np.int64)])
    a = _centre_size(anchors)
    with np.errstate(all="ignore"):  # inverted random boxes: the log of a negative ratio
        t = np.concatenate([(r[..., :2] - a[..., :2]) / a[..., 2:],
                            np.log(r[..., 2:] / a[..., 2:])], -1)
    return [np.where(positive, (t - means) / stds, 0), np.broadcast_to(positive, t.shape) * 1.0]


def _box_decode(data, anchors, p):
    std = np.array([float(p.get("std%d" % k, 1)) for k in range(4)], dtype=np.float32)
    a = anchors if p.get("format", "center") == "center" else _centre_size(anchors)
    o = data * std
    clip = float(p.get("clip", -1))
    if clip > 0:
        o[..., 2:] = np.minimum(o[..., 2:], np.float32(clip))
    xy = o[..., :2] * a[..., 2:] + a[..., :2]
    half = np.exp(o[..., 2:]) * a[..., 2:] / 2
    return np.concatenate([xy - half, xy + half], -1)


def _bipartite_matching(data, p):
    """The best free candidate (row-major among equals) while its score passes."""
    ascend = _flag(p, "is_ascend")
    threshold = np.float32(p["threshold"])
    rows, cols = data.shape[-2:]
    scores = data.reshape(-1, rows * cols)
    row_of = -np.ones((len(scores), rows))
    col_of = -np.ones((len(scores), cols))
    limit = min(rows, cols) if int(p.get("topk", -1)) < 0 else int(p["topk"])
    for m, s in enumerate(scores):
        order = np.argsort(s if ascend else -s, kind="stable")
        matched = 0
        for k in order:
            r, c = divmod(k, cols)
            if matched == limit:
                break
            if row_of[m, r] != -1 or col_of[m, c] != -1:
                continue
            if not (s[k] < threshold if ascend else s[k] > threshold):
                break
            row_of[m, r], col_of[m, c] = c, r
            matched += 1
    return [row_of.reshape(data.shape[:-1]), col_of.reshape(data.shape[:-2] + (cols,))]


def _box_iou(lhs, rhs, p):
    def corners(b):
        if p.get("format", "corner") == "center":
            return np.concatenate([b[..., :2] - b[..., 2:] / 2, b[..., :2] + b[..., 2:] / 2], -1)
        return b
    a, b = corners(lhs.reshape(-1, 4))[:, None], corners(rhs.reshape(-1, 4))[None]
    w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    overlap = w * h
    union = ((a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
             + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - overlap)
    iou = np.where((w > 0) & (h > 0), overlap / np.where(union == 0, 1, union), 0)
    return iou.reshape(lhs.shape[:-1] + rhs.shape[:-1]).astype(lhs.dtype)


def _box_nms(data, p):
    """Greedy non-maximum suppression item by item, as the loops MXNet's documentation states."""
    thresh, valid = float(p.get("overlap_thresh", 0.5)), float(p.get("valid_thresh", 0))
    topk, start = int(p.get("topk", -1)), int(p.get("coord_start", 2))
    score, id_index = int(p.get("score_index", 1)), int(p.get("id_index", -1))
    background, force = int(p.get("background_id", -1)), _flag(p, "force_suppress")
    in_format, out_format = p.get("in_format", "corner"), p.get("out_format", "corner")
    coords = {"format": in_format}
    items = data.reshape((-1,) + data.shape[-2:])
    out = -np.ones_like(items)
    for b, boxes in enumerate(items):
        keep = [i for i in range(len(boxes)) if boxes[i, score] > valid and not (
            id_index >= 0 and background >= 0 and boxes[i, id_index] == background)]
        keep.sort(key=lambda i: -boxes[i, score])  # stable: ties in input order
        keep = keep[:topk] if topk > 0 else keep
        iou = _box_iou(boxes[:, start:start + 4], boxes[:, start:start + 4], coords)
        kept = []
        for i in keep:
            if all(iou[i, j] <= thresh or (not force and id_index >= 0
                                           and boxes[i, id_index] != boxes[j, id_index])
                   for j in kept):
                kept.append(i)
        for row, i in enumerate(kept):
            out[b, row] = boxes[i]
            c = boxes[i, start:start + 4]
            if in_format != out_format and out_format == "center":
                out[b, row, start:start + 4] = [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2,
                                                c[2] - c[0], c[3] - c[1]]
            elif in_format != out_format:
                out[b, row, start:start + 4] = [c[0] - c[2] / 2, c[1] - c[3] / 2,
                                                c[0] + c[2] / 2, c[1] + c[3] / 2]
    return out.reshape(data.shape)


def _arange_like(x, p):
    start, step, repeat = float(p.get("start", 0)), float(p.get("step", 1)), int(p.get("repeat", 1))
    count = x.size if "axis" not in p else x.shape[int(p["axis"])]
    values = (start + step * (np.arange(count) // repeat)).astype(x.dtype)
    return values.reshape(x.shape) if "axis" not in p else values


def _index_copy(old, index, new, p):
    out = old.copy()
    out[index.astype(np.int64)] = new
    return out


def _multibox_detection(cls_prob, loc_pred, anchor, p):
    """SSD's decoding and per-class suppression, image by image, as loops."""
    clip, threshold = _flag(p, "clip", True), _f32(p.get("threshold", 0.01))
    background, nms = int(p.get("background_id", 0)), _f32(p.get("nms_threshold", 0.5))
    force, topk = _flag(p, "force_suppress"), int(p.get("nms_topk", -1))
    variances = [_f32(v) for v in _tuple(p.get("variances", "(0.1,0.1,0.2,0.2)"))]
    images, classes, n = cls_prob.shape
    out = -np.ones((images, n, 6), cls_prob.dtype)
    a = anchor.reshape(n, 4)
    for b in range(images):
        loc = loc_pred[b].reshape(n, 4)
        found = []
        for i in range(n):
            scores = [(cls_prob[b, c, i], c) for c in range(classes) if c != background]
            score, best = max(scores, key=lambda t: t[0]) if scores else (-1, -1)
            best = min(c for s, c in scores if s == score)  # the first of equals
            if not score >= threshold:
                continue
            aw, ah = a[i, 2] - a[i, 0], a[i, 3] - a[i, 1]
            x = loc[i, 0] * variances[0] * aw + (a[i, 0] + a[i, 2]) / 2
            y = loc[i, 1] * variances[1] * ah + (a[i, 1] + a[i, 3]) / 2
            w = np.exp(loc[i, 2] * variances[2]) * aw / 2
            h = np.exp(loc[i, 3] * variances[3]) * ah / 2
            box = np.array([x - w, y - h, x + w, y + h])
            found.append([best - (1 if 0 <= background < best else 0), score]
                         + list(np.clip(box, 0, 1) if clip else box))
        found.sort(key=lambda r: -r[1])  # stable: ties in anchor order
        contenders = min(len(found), topk) if topk > 0 else len(found)
        for r in found[contenders:]:
            r[0] = -1
        for k in range(contenders):
            if found[k][0] < 0:
                continue
            for j in range(k + 1, contenders):
                same = force or found[j][0] == found[k][0]
                if found[j][0] >= 0 and same and _box_iou(
                        np.array(found[k][2:]), np.array(found[j][2:]), {}) > nms:
                    found[j][0] = -1
        for k, r in enumerate(found):
            out[b, k] = r
    return out


def _multibox_target(anchor, label, cls_pred, p):
    """SSD's matching and negative mining, image by image, as loops."""
    threshold, ignore = _f32(p.get("overlap_threshold", 0.5)), _f32(p.get("ignore_label", -1))
    ratio, mining_thresh = _f32(p.get("negative_mining_ratio", -1)), _f32(
        p.get("negative_mining_thresh", 0.5))
    minimum = int(p.get("minimum_negative_samples", 0))
    variances = [_f32(v) for v in _tuple(p.get("variances", "(0.1,0.1,0.2,0.2)"))]
    a = anchor.reshape(-1, 4)
    n, images = a.shape[0], label.shape[0]
    loc, mask = np.zeros((images, n, 4), label.dtype), np.zeros((images, n, 4), label.dtype)
    cls = np.full((images, n), ignore, label.dtype)
    for b in range(images):
        valid = next((k for k in range(label.shape[1]) if label[b, k, 0] == -1), label.shape[1])
        if valid == 0:
            continue
        iou = _box_iou(a, label[b, :valid, 1:5], {})
        match, flag = [-1] * n, [-1] * n
        taken = [False] * valid
        for _ in range(valid):  # each label its own anchor, the best pair first
            best, pair = 1e-6, None
            for j in range(n):
                for k in range(valid):
                    if flag[j] != 1 and not taken[k] and iou[j, k] > best:
                        best, pair = iou[j, k], (j, k)
            if pair is None:
                break
            flag[pair[0]], match[pair[0]], taken[pair[1]] = 1, pair[1], True
        if threshold > 0:
            for j in range(n):
                if flag[j] != 1 and iou[j].max() > threshold:
                    flag[j], match[j] = 1, int(np.argmax(iou[j]))
        positives = flag.count(1)
        if ratio > 0:
            wanted = max(int(np.float32(positives) * np.float32(ratio)), minimum)
            pred = cls_pred[b].astype(np.float64)
            prob = np.exp(pred - pred.max(0))
            background = prob[0] / prob.sum(0)
            candidates = [j for j in range(n) if flag[j] != 1 and iou[j].max() < mining_thresh]
            candidates.sort(key=lambda j: background[j])  # stable: ties in anchor order
            for j in candidates[:min(wanted, n - positives)]:
                flag[j] = 0
        else:
            flag = [1 if f == 1 else 0 for f in flag]
        for j in range(n):
            if flag[j] == 0:
                cls[b, j] = 0
            elif flag[j] == 1:
                g = label[b, match[j], 1:5].astype(np.float64)
                aw, ah = a[j, 2] - a[j, 0], a[j, 3] - a[j, 1]
                gw, gh = g[2] - g[0], g[3] - g[1]
                with np.errstate(divide="ignore", invalid="ignore"):
                    loc[b, j] = [((g[0] + g[2]) - (a[j, 0] + a[j, 2])) / 2 / aw / variances[0],
                                 ((g[1] + g[3]) - (a[j, 1] + a[j, 3])) / 2 / ah / variances[1],
                                 np.log(gw / aw) / variances[2], np.log(gh / ah) / variances[3]]
                mask[b, j] = 1
                cls[b, j] = label[b, match[j], 0] + 1
    return loc.reshape(images, -1), mask.reshape(images, -1), cls


def _proposal(cls_prob, bbox_pred, im_info, p):
    """Faster R-CNN's proposals, image by image, as loops (float32 anchors as MXNet's)."""
    f = np.float32
    ratios = [_f32(v) for v in _tuple(p.get("ratios", "(0.5,1,2)"))]
    scales = [_f32(v) for v in _tuple(p.get("scales", "(4,8,16,32)"))]
    stride = int(p.get("feature_stride", 16))
    pre, post = int(p.get("rpn_pre_nms_top_n", 6000)), int(p.get("rpn_post_nms_top_n", 300))
    threshold, min_size = _f32(p.get("threshold", 0.7)), int(p.get("rpn_min_size", 16))
    iou_loss = _flag(p, "iou_loss")
    base = []
    centre = f(0.5) * (f(stride) - f(1))
    for r in ratios:
        for s in scales:
            w = np.floor(np.sqrt(np.floor(f(stride * stride) / f(r))) + f(0.5)) * f(s)
            h = np.floor(w / f(s) * f(r) + f(0.5)) * f(s)
            base.append([centre - f(0.5) * (w - 1), centre - f(0.5) * (h - 1),
                         centre + f(0.5) * (w - 1), centre + f(0.5) * (h - 1)])
    images, a_count, height, width = cls_prob.shape[0], len(base), cls_prob.shape[2], cls_prob.shape[3]
    count = a_count * height * width
    pre = pre if 0 < pre < count else count
    rois, scores = [], []
    for b in range(images):
        im_h, im_w, scale = (float(v) for v in im_info[b])
        boxes = []
        for h in range(height):
            for w in range(width):
                for a in range(a_count):
                    anchor = np.array(base[a], np.float64) + [w * stride, h * stride] * 2
                    d = bbox_pred[b, 4 * a:4 * a + 4, h, w].astype(np.float64)
                    if iou_loss:
                        box = anchor + d
                    else:
                        bw, bh = anchor[2] - anchor[0] + 1, anchor[3] - anchor[1] + 1
                        x, y = d[0] * bw + anchor[0] + 0.5 * (bw - 1), d[1] * bh + anchor[1] + 0.5 * (bh - 1)
                        hw, hh = 0.5 * (np.exp(d[2]) * bw - 1), 0.5 * (np.exp(d[3]) * bh - 1)
                        box = np.array([x - hw, y - hh, x + hw, y + hh])
                    box = np.clip(box, 0, [im_w - 1, im_h - 1, im_w - 1, im_h - 1])
                    inside = h < np.floor(im_h / stride) and w < np.floor(im_w / stride)
                    score = float(cls_prob[b, a_count + a, h, w]) if inside else -1.0
                    least = min_size * scale
                    if box[2] - box[0] + 1 < least or box[3] - box[1] + 1 < least:
                        box = box + [-least / 2, -least / 2, least / 2, least / 2]
                        score = -1.0
                    boxes.append((box, score))
        order = sorted(range(count), key=lambda i: -boxes[i][1])[:pre]  # stable
        area = [(boxes[i][0][2] - boxes[i][0][0] + 1) * (boxes[i][0][3] - boxes[i][0][1] + 1)
                for i in order]
        suppressed, kept = [False] * pre, []
        for i in range(pre):
            if suppressed[i]:
                continue
            kept.append(order[i])
            if len(kept) == min(post, pre):
                break
            bi = boxes[order[i]][0]
            for j in range(i + 1, pre):
                bj = boxes[order[j]][0]
                iw = min(bi[2], bj[2]) - max(bi[0], bj[0]) + 1
                ih = min(bi[3], bj[3]) - max(bi[1], bj[1]) + 1
                overlap = max(iw, 0) * max(ih, 0)
                if overlap / (area[i] + area[j] - overlap) > threshold:
                    suppressed[j] = True
        for r in range(post):
            box, score = boxes[kept[r % len(kept)]]
            rois.append([b] + list(box))
            scores.append([score])
    rois, scores = np.array(rois, cls_prob.dtype), np.array(scores, cls_prob.dtype)
    return (rois, scores) if _flag(p, "output_score") else rois


def _signum(weight, grad, mom, p):
    momentum, wd = _f32(p.get("momentum", 0)), _f32(p.get("wd", 0))
    g = _clip(grad * _f32(p.get("rescale_grad", 1)), _f32(p.get("clip_gradient", -1)))
    mom = momentum * mom - (1 - momentum) * (wd * weight + g)
    return (1 - _f32(p["lr"]) * _f32(p.get("wd_lh", 0))) * weight + _f32(p["lr"]) * np.sign(mom)


def _softmax_cross_entropy(x, label, params):
    log_p = _softmax(x, {}, log=True)
    return np.array([-log_p[np.arange(len(label)), label.astype(int)].sum()])


_ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "softrelu": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanh": np.tanh,
}


def _leaky_relu(x, params):
    slope = _f32(params.get("slope", 0.25))
    if params.get("act_type", "leaky") == "elu":
        return np.where(x > 0, x, slope * (np.exp(x) - 1))
    return np.where(x > 0, x, slope * x)


def _erfinv(y):
    """erf's inverse by bisection in float64 (independent of the library's method)."""
    y = np.asarray(y, np.float64)
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    erf = np.vectorize(math.erf)
    for _ in range(64):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def _unary(fn):
    return lambda x, params: fn(x)


def _scalar(fn):
    return lambda x, params: fn(x, float(params.get("scalar", 1)))


def _binary(fn):
    return lambda a, b, params: fn(a, b)


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _rint_half_down(x):  # MXNet's rint: ties go to the lower integer
    return np.where(x - np.floor(x) <= np.ceil(x) - x, np.floor(x), np.ceil(x))


# The binary operations beyond arithmetic, which each family (broadcast_, _, _*_scalar) has;
# comparisons and logical operations give 1 or 0 in the operands' type.
_MATH_BINARY = {
    "maximum": np.maximum,
    "minimum": np.minimum,
    "power": np.power,
    "hypot": np.hypot,
    "mod": np.mod,  # the divisor's sign, as MXNet's (the cases' divisors are not 0)
    "equal": lambda a, b: (a == b).astype(a.dtype),
    "not_equal": lambda a, b: (a != b).astype(a.dtype),
    "greater": lambda a, b: (a > b).astype(a.dtype),
    "greater_equal": lambda a, b: (a >= b).astype(a.dtype),
    "lesser": lambda a, b: (a < b).astype(a.dtype),
    "lesser_equal": lambda a, b: (a <= b).astype(a.dtype),
    "logical_and": lambda a, b: np.logical_and(a, b).astype(a.dtype),
    "logical_or": lambda a, b: np.logical_or(a, b).astype(a.dtype),
    "logical_xor": lambda a, b: np.logical_xor(a, b).astype(a.dtype),
}

def _smooth_l1(x, sigma):
    s2 = sigma * sigma
    return np.where(np.abs(x) < 1 / s2, 0.5 * s2 * x * x, np.abs(x) - 0.5 / s2)


def _softmax_activation(x, p):
    if p.get("mode", "instance") == "channel":
        return _softmax(x, {"axis": "1"}, log=False)
    return _softmax(x, {}, log=False)  # the last axis, as MXNet computes "instance"


def _squeeze(x, p):
    axis = p.get("axis", "None")
    y = np.squeeze(x) if axis == "None" else np.squeeze(x, axis=_tuple(axis))
    return y.reshape(1) if y.ndim == 0 else y


def _broadcast_to(x, p):
    target = _tuple(p["shape"])
    return np.broadcast_to(x, [x.shape[d] if t == 0 else t for d, t in enumerate(target)])


def _broadcast_like(x, y, p):
    if "lhs_axes" not in p:
        return np.broadcast_to(x, y.shape)
    target = list(x.shape)
    for l, r in zip(_tuple(p["lhs_axes"]), _tuple(p["rhs_axes"])):
        target[l] = y.shape[r]
    return np.broadcast_to(x, target)


def _broadcast_axis(x, p):
    target = list(x.shape)
    for a, size in zip(_tuple(p.get("axis", "()")), _tuple(p.get("size", "()"))):
        target[a] = size
    return np.broadcast_to(x, target)


def _reshape_like(lhs, rhs, p):
    def span(key, ndim, default):
        value = p.get(key, "None")
        return default if value == "None" else int(value) % ndim if int(value) < 0 else int(value)
    lb, le = span("lhs_begin", lhs.ndim, 0), span("lhs_end", lhs.ndim, lhs.ndim)
    rb, re = span("rhs_begin", rhs.ndim, 0), span("rhs_end", rhs.ndim, rhs.ndim)
    return lhs.reshape(lhs.shape[:lb] + rhs.shape[rb:re] + lhs.shape[le:])


def _depth_to_space(x, p):
    b = int(p["block_size"])
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(x, p):
    b = int(p["block_size"])
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def _diag(x, p):
    k = int(p.get("k", 0))
    if x.ndim == 1:
        return np.diag(x, k)
    return np.diagonal(x, k, int(p.get("axis1", 0)), int(p.get("axis2", 1)))


def _arange(p):
    start, step = float(p["start"]), float(p.get("step", 1))
    if "stop" not in p:
        start, stop = 0.0, start
    else:
        stop = float(p["stop"])
    dtype = np.dtype(p.get("dtype", "float32"))
    count = int(math.ceil((stop - start) / step))
    values = dtype.type(start) + np.arange(count).astype(dtype) * dtype.type(step)
    return np.repeat(values, int(p.get("repeat", 1)))


def _slice_like(x, like, p):
    axes = _tuple(p.get("axes", "()")) or tuple(range(x.ndim))
    index = [slice(None)] * x.ndim
    for a in axes:
        index[a % x.ndim] = slice(0, like.shape[a % x.ndim])
    return x[tuple(index)]


def _all_finite(*a):
    return np.array([float(all(np.isfinite(x).all() for x in a[:-1]))], dtype=np.float32)


def _allclose(a, b, p):
    close = np.allclose(a, b, rtol=float(p.get("rtol", 1e-5)), atol=float(p.get("atol", 1e-8)),
                        equal_nan=p.get("equal_nan", "True") in ("True", "true", "1"))
    return np.array([close], dtype=np.uint8)


def _repeat(x, p):
    axis = p.get("axis", "None")
    return np.repeat(x, int(p["repeats"]), axis=None if axis == "None" else int(axis))


def _cumsum(x, p):
    axis = p.get("axis", "None")
    y = np.cumsum(x, axis=None if axis == "None" else int(axis))
    return y if p.get("dtype", "None") == "None" else y.astype(p["dtype"])


def _squeezed(parts, axis, p):
    return [np.squeeze(part, axis=axis) for part in parts] if _flag(p, "squeeze_axis") else parts


def _split(x, p):
    axis = int(p.get("axis", 1))
    return _squeezed(np.split(x, int(p["num_outputs"]), axis=axis), axis, p)


def _split_v2(x, p):
    """Cut at the indices after the first (which is 0), or into array_split's sections."""
    axis = int(p.get("axis", 1))
    sections = int(p.get("sections", 0))
    if sections > 0:
        return _squeezed(np.array_split(x, sections, axis=axis), axis, p)
    return _squeezed(np.split(x, list(_tuple(p["indices"]))[1:], axis=axis), axis, p)


def _index(values, n, mode):
    """Indices truncated toward zero, then clipped to [0, n) or wrapped around it."""
    j = np.trunc(values).astype(np.int64)
    return np.mod(j, n) if mode == "wrap" else np.clip(j, 0, n - 1)


def _take(a, indices, p):
    axis = int(p.get("axis", 0)) % a.ndim
    return np.take(a, _index(indices, a.shape[axis], p.get("mode", "clip")), axis=axis)


def _pick(data, index, p):
    axis = int(p.get("axis", -1)) % data.ndim
    j = _index(index, data.shape[axis], p.get("mode", "clip"))
    j = j.reshape(data.shape[:axis] + (1,) + data.shape[axis + 1:])
    y = np.take_along_axis(data, j, axis=axis)
    return y if _flag(p, "keepdims") else np.squeeze(y, axis=axis)


def _one_hot(indices, p):
    depth = int(p["depth"])
    j = np.trunc(indices).astype(np.int64)
    hit = (j[..., None] == np.arange(depth)) & (j[..., None] >= 0)
    return np.where(hit, float(p.get("on_value", 1)), float(p.get("off_value", 0)))


def _where(condition, x, y, p):
    if condition.shape != x.shape:  # one condition per row
        condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(condition != 0, x, y)


def _sorted_positions(x, p, ascend_default):
    """(x viewed along the axis, the stable order of each line, the axis); NaN-free input."""
    axis = p.get("axis", "-1")
    if axis == "None":
        x, axis = x.reshape(-1), 0
    axis = int(axis) % x.ndim
    ascend = _flag(p, "is_ascend", ascend_default)
    return x, np.argsort(x if ascend else -x, axis=axis, kind="stable"), axis


def _topk(x, p):
    data, order, axis = _sorted_positions(x, p, False)
    k = int(p.get("k", 1))
    order = np.take(order, np.arange(k if k >= 1 else data.shape[axis]), axis=axis)
    values = np.take_along_axis(data, order, axis=axis)
    indices = order.astype(np.float64)
    ret = p.get("ret_typ", "indices")
    if ret == "mask":
        mask = np.zeros_like(data)
        np.put_along_axis(mask, order, 1, axis=axis)
        return mask.reshape(x.shape)
    return {"value": values, "indices": indices, "both": [values, indices]}[ret]


def _sort(x, p):
    data, order, axis = _sorted_positions(x, p, True)
    return np.take_along_axis(data, order, axis=axis)


def _argsort(x, p):
    return _sorted_positions(x, p, True)[1].astype(np.float64)


def _sequence(kind):
    """SequenceMask, SequenceLast or SequenceReverse on (T, B, ...) or (B, T, ...)."""
    def run(x, *rest):
        p = rest[-1]
        axis = int(p.get("axis", 0))
        steps = x.shape[axis]
        data = np.moveaxis(x, axis, 0)  # (T, B, ...)
        lengths = (np.clip(np.trunc(rest[0]), 0, steps).astype(int) if len(rest) == 2
                   else np.full(data.shape[1], steps))
        if kind == "last":
            return np.stack([data[max(n, 1) - 1, b] for b, n in enumerate(lengths)])
        out = data.copy()
        for b, n in enumerate(lengths):
            if kind == "mask":
                out[n:, b] = float(p.get("value", 0))
            else:
                out[:n, b] = data[:n, b][::-1]
        return np.moveaxis(out, 0, axis)
    return run


def _nd_index(indices):
    """indices (M, Y...) as the tuple NumPy indexes the first M axes with. The cases hold no
    negative index: MXNet 1.9.1's gather_nd gradient scatters those outside its buffer (the
    C++ tests check ours against central differences)."""
    return tuple(np.trunc(indices).astype(int))


def _scatter_nd(data, indices, params):
    out = np.zeros(_tuple(params["shape"]), dtype=data.dtype)
    out[_nd_index(indices)] = data
    return out


def _upsampling(*args):
    """Nearest: each input repeated to the first's size times scale, stacked or summed.
    Bilinear: the depthwise deconvolution by the weight input."""
    inputs, p = args[:-1], args[-1]
    if p.get("sample_type") == "bilinear":
        scale, channels = int(p["scale"]), inputs[0].shape[1]
        k = 2 * scale - scale % 2
        return _deconvolution(inputs[0], inputs[1], params={
            "kernel": f"({k},{k})", "stride": f"({scale},{scale})",
            "pad": f"({scale // 2},{scale // 2})", "num_group": str(channels)})
    height = inputs[0].shape[2] * int(p["scale"])
    ups = [x.repeat(height // x.shape[2], axis=2).repeat(height // x.shape[2], axis=3)
           for x in inputs]
    return sum(ups) if p.get("multi_input_mode") == "sum" else np.concatenate(ups, axis=1)


def _arg_reduce(fn):
    def reduce(x, p):
        axis = p.get("axis", "None")
        if axis == "None":
            return np.array([fn(x)], dtype=x.dtype)
        return fn(x, axis=int(axis), keepdims=_flag(p, "keepdims")).astype(x.dtype)
    return reduce


def _swapaxes(x, p):
    return np.swapaxes(x, int(p.get("dim1", 0)), int(p.get("dim2", 0)))


def _concat(*a):
    return np.concatenate(a[:-1], axis=int(a[-1].get("dim", 1)))


FORWARD = {
    "Activation": lambda x, p: _ACTIVATIONS[p["act_type"]](x),
    "BatchNorm": _batch_norm,
    "_contrib_SyncBatchNorm": _batch_norm,  # one device: BatchNorm over axis 1
    "_contrib_BatchNormWithReLU": lambda *a: np.maximum(_batch_norm(*a), 0),
    "Cast": lambda x, p: x.astype(p["dtype"]),
    "CTCLoss": _ctc_loss,
    "Convolution": lambda *a: _convolution(*a[:-1], params=a[-1]),
    "_contrib_DeformableConvolution": lambda *a: _deformable_convolution(*a[:-1], params=a[-1]),
    "_contrib_ModulatedDeformableConvolution":
        lambda *a: _modulated_deformable_convolution(*a[:-1], params=a[-1]),
    "Deconvolution": lambda *a: _deconvolution(*a[:-1], params=a[-1]),
    "Concat": _concat,
    "_rnn_param_concat": _concat,  # Concat where every shape is known
    "Flatten": lambda x, p: x.reshape(x.shape[0], -1),
    "Dropout": lambda x, p: x,  # the tests' forward calls are not training
    "Embedding": _embedding,
    "FullyConnected": lambda *a: _fully_connected(*a[:-1], params=a[-1]),
    "GroupNorm": lambda x, g, b, p: _group_norm(
        x, g, b, p, int(p.get("num_groups", 1)), p.get("eps", 1e-5)),
    "gather_nd": lambda data, indices, p: data[_nd_index(indices)],
    "scatter_nd": _scatter_nd,
    "InstanceNorm": lambda x, g, b, p: _group_norm(x, g, b, p, x.shape[1], p.get("eps", 1e-3)),
    "LayerNorm": _layer_norm,
    "LRN": _lrn,
    "RNN": _rnn,
    "L2Normalization": _l2_normalization,
    "LeakyReLU": _leaky_relu,
    "Pad": _pad,
    "SequenceLast": _sequence("last"),
    "UpSampling": _upsampling,
    "SequenceMask": _sequence("mask"),
    "SequenceReverse": _sequence("reverse"),
    "Pooling": _pooling,
    "Reshape": _reshape,
    "SoftmaxOutput": lambda x, label, p: _softmax(
        x, {"axis": "1" if _flag(p, "multi_output") else "-1"}, log=False),
    "_div_scalar": _scalar(lambda x, s: x / s),
    "_minus_scalar": _scalar(lambda x, s: x - s),
    "_mul_scalar": _scalar(lambda x, s: x * s),
    "_plus_scalar": _scalar(lambda x, s: x + s),
    "_rdiv_scalar": _scalar(lambda x, s: s / x),
    "_rminus_scalar": _scalar(lambda x, s: s - x),
    "abs": _unary(np.abs),
    "batch_dot": lambda a, b, p: _dot(a, b, p, batch=True),
    "broadcast_add": _binary(np.add),
    "broadcast_div": _binary(np.divide),
    "broadcast_mul": _binary(np.multiply),
    "broadcast_sub": _binary(np.subtract),
    # MXNet's clip, which differs from np.clip when a_min > a_max (a_min below a_max's cut).
    "clip": lambda x, p: np.where(x > float(p["a_max"]), float(p["a_max"]),
                                  np.where(x < float(p["a_min"]), float(p["a_min"]), x)),
    "dot": lambda a, b, p: _dot(a, b, p, batch=False),
    "elemwise_add": _binary(np.add),
    "elemwise_div": _binary(np.divide),
    "elemwise_mul": _binary(np.multiply),
    "elemwise_sub": _binary(np.subtract),
    "exp": _unary(np.exp),
    "hard_sigmoid": lambda x, p: np.clip(_f32(p.get("alpha", 0.2)) * x + _f32(p.get("beta", 0.5)), 0, 1),
    "log": _unary(np.log),
    "log_softmax": lambda x, p: _softmax(x, p, log=True),
    "max": _reduce(np.max),
    "mean": _reduce(np.mean),
    "min": _reduce(np.min),
    "nanprod": _reduce(np.nanprod),
    "nansum": _reduce(np.nansum),
    "norm": _norm,
    "negative": _unary(np.negative),
    "prod": _reduce(np.prod),
    "relu": _unary(_ACTIVATIONS["relu"]),
    "sgd_mom_update": lambda w, g, m, p: _sgd(w, g, p, mom=m),
    "nag_mom_update": _nag,
    "mp_sgd_update": _mp(lambda w, g, p: _sgd(w, g, p)),
    "mp_sgd_mom_update": _mp(lambda w, g, m, p: _sgd(w, g, p, mom=m)),
    "mp_nag_mom_update": _mp(_nag),
    "sgd_update": lambda w, g, p: _sgd(w, g, p),
    "signsgd_update": lambda w, g, p: (1 - _f32(p["lr"]) * _f32(p.get("wd", 0))) * w
    - _f32(p["lr"]) * np.sign(g),
    "signum_update": _signum,
    "adam_update": _adam,
    "ftml_update": _ftml,
    "ftrl_update": _ftrl,
    "_adamw_update": _adamw,
    "_mp_adamw_update": _mp_adamw,
    "_multi_adamw_update": _multi_adamw(False),
    "_multi_mp_adamw_update": _multi_adamw(True),
    "_multi_lamb_update": _multi_lamb(False),
    "_multi_mp_lamb_update": _multi_lamb(True),
    "multi_sgd_update": _multi_sgd(False, False, False),
    "multi_sgd_mom_update": _multi_sgd(True, False, False),
    "multi_mp_sgd_update": _multi_sgd(False, True, False),
    "multi_mp_sgd_mom_update": _multi_sgd(True, True, False),
    "preloaded_multi_sgd_update": _multi_sgd(False, False, True),
    "preloaded_multi_sgd_mom_update": _multi_sgd(True, False, True),
    "preloaded_multi_mp_sgd_update": _multi_sgd(False, True, True),
    "preloaded_multi_mp_sgd_mom_update": _multi_sgd(True, True, True),
    "lamb_update_phase1": _lamb_phase1,
    "lamb_update_phase2": _lamb_phase2,
    "mp_lamb_update_phase1": lambda w, g, m, v, w32, p: _lamb_phase1(w32, g, m, v, p),
    "mp_lamb_update_phase2": lambda w, g, r1, r2, w32, p: _lamb_phase2(w32, g, r1, r2, p)
    .astype(w.dtype),
    "rmsprop_update": _rmsprop,
    "rmspropalex_update": _rmspropalex,
    "sigmoid": _unary(_ACTIVATIONS["sigmoid"]),
    "slice": _slice,
    "slice_axis": _slice_axis,
    "softmax": lambda *a: _masked_softmax(*a[:-1], params=a[-1]),
    "softmax_cross_entropy": _softmax_cross_entropy,
    "sqrt": _unary(np.sqrt),
    "square": _unary(np.square),
    "sum": _reduce(np.sum),
    "tanh": _unary(np.tanh),
    "log1p": _unary(np.log1p),
    "expm1": _unary(np.expm1),
    "log2": _unary(np.log2),
    "log10": _unary(np.log10),
    "rsqrt": _unary(lambda x: 1 / np.sqrt(x)),
    "reciprocal": _unary(np.reciprocal),
    "cbrt": _unary(np.cbrt),
    "erf": _unary(np.vectorize(math.erf)),
    "sin": _unary(np.sin),
    "cos": _unary(np.cos),
    "arctan": _unary(np.arctan),
    "tan": _unary(np.tan),
    "arcsin": _unary(np.arcsin),
    "arccos": _unary(np.arccos),
    "sinh": _unary(np.sinh),
    "cosh": _unary(np.cosh),
    "arcsinh": _unary(np.arcsinh),
    "arccosh": _unary(np.arccosh),
    "arctanh": _unary(np.arctanh),
    "degrees": _unary(np.degrees),
    "radians": _unary(np.radians),
    "rcbrt": _unary(lambda x: 1 / np.cbrt(x)),
    "gamma": _unary(np.vectorize(math.gamma)),
    "gammaln": _unary(np.vectorize(math.lgamma)),
    "erfinv": _unary(_erfinv),
    "softsign": _unary(lambda x: x / (1 + np.abs(x))),
    "logical_not": _unary(lambda x: (x == 0).astype(x.dtype)),
    "_copy": _unary(lambda x: x),
    "sign": _unary(np.sign),
    "floor": _unary(np.floor),
    "ceil": _unary(np.ceil),
    "round": _unary(_round_half_away),
    "_contrib_round_ste": _unary(_round_half_away),
    "_contrib_sign_ste": _unary(np.sign),
    "rint": _unary(_rint_half_down),
    "trunc": _unary(np.trunc),
    "fix": _unary(np.trunc),
    "zeros_like": _unary(np.zeros_like),
    "ones_like": _unary(np.ones_like),
    "BlockGrad": _unary(lambda x: x),
    "smooth_l1": _scalar(lambda x, s: _smooth_l1(x, _f32(s))),
    "LinearRegressionOutput": lambda x, label, p: x,
    "LogisticRegressionOutput": lambda x, label, p: 1 / (1 + np.exp(-x)),
    "MAERegressionOutput": lambda x, label, p: x,
    "MakeLoss": lambda x, p: x,
    "SVMOutput": lambda x, label, p: x,
    "SoftmaxActivation": _softmax_activation,
    "expand_dims": lambda x, p: np.expand_dims(x, int(p["axis"])),
    "squeeze": _squeeze,
    "broadcast_to": _broadcast_to,
    "broadcast_like": _broadcast_like,
    "tile": lambda x, p: np.tile(x, _tuple(p["reps"])),
    "repeat": _repeat,
    "stack": lambda *a: np.stack(a[:-1], axis=int(a[-1].get("axis", 0))),
    "SliceChannel": _split,
    "_np_cumsum": _cumsum,
    "_split_v2": _split_v2,
    "take": _take,
    "pick": _pick,
    "batch_take": lambda a, indices, p: _pick(a, indices, {}),  # pick's defaults
    "fill_element_0index": _fill_element_0index,
    "_histogram": _histogram,
    "one_hot": _one_hot,
    "where": _where,
    "all_finite": _all_finite,
    "_contrib_allclose": _allclose,
    "amp_cast": lambda x, p: x,  # float32 and float64 inputs: a conversion of no loss
    "amp_multicast": lambda *a: list(a[:-1]),
    "moments": lambda x, p: [x.mean(axis=_tuple(p["axes"]), keepdims=_flag(p, "keepdims")),
                             x.var(axis=_tuple(p["axes"]), keepdims=_flag(p, "keepdims"))],
    "argmax_channel": lambda x, p: np.argmax(x, axis=1).astype(x.dtype),
    "slice_like": _slice_like,
    "_zeros": lambda p: np.zeros(_tuple(p["shape"]), p.get("dtype", "float32")),
    "_ones": lambda p: np.ones(_tuple(p["shape"]), p.get("dtype", "float32")),
    "_full": lambda p: np.full(_tuple(p["shape"]), float(p["value"]), p.get("dtype", "float32")),
    "_arange": _arange,
    "_eye": lambda p: np.eye(int(p["N"]), int(p.get("M", 0)) or None, int(p.get("k", 0)),
                             dtype=p.get("dtype", "float32")),
    "_linspace": lambda p: np.linspace(float(p["start"]), float(p["stop"]), int(p["num"]),
                                       endpoint=_flag(p, "endpoint", True)),
    "multi_all_finite": _all_finite,
    "multi_sum_sq": _multi_sum_sq,
    "ROIPooling": _roi_pooling,
    "_contrib_PSROIPooling": _psroi_pooling,
    "_contrib_DeformablePSROIPooling": _deformable_psroi_pooling,
    "_contrib_ROIAlign": _roi_align,
    "_contrib_RROIAlign": _rroi_align,
    "_slice_assign": _slice_assign,
    "_slice_assign_scalar": _slice_assign_scalar,
    "_ravel_multi_index": _ravel,
    "_unravel_index": _unravel,
    "_linalg_gemm": _gemm,
    "_linalg_gemm2": lambda a, b, p: _gemm(a, b, None, p),
    "_linalg_trmm": _trmm,
    "_linalg_trsm": _trsm,
    "_linalg_syrk": _syrk,
    "_linalg_potrf": lambda a, p: np.linalg.cholesky(_symmetric_from_lower(a)),
    "_linalg_potri": _potri,
    "_linalg_inverse": lambda a, p: np.linalg.inv(a),
    "_linalg_syevd": _syevd,
    "_linalg_gelqf": _gelqf,
    "_linalg_det": lambda a, p: np.linalg.det(a).reshape(a.shape[:-2] or (1,)),
    "_linalg_slogdet": lambda a, p: [v.reshape(a.shape[:-2] or (1,)) for v in np.linalg.slogdet(a)],
    "im2col": _im2col,
    "_contrib_MultiBoxPrior": _multibox_prior,
    "_contrib_box_iou": _box_iou,
    "_contrib_bipartite_matching": _bipartite_matching,
    "_contrib_count_sketch": _count_sketch,
    "_contrib_fft": _fft,
    "_contrib_ifft": _ifft,
    "_contrib_hawkesll": _hawkesll,
    "_contrib_box_encode": _box_encode,
    "_random_pdf_uniform": _pdf("uniform"),
    "_random_pdf_normal": _pdf("normal"),
    "_random_pdf_gamma": _pdf("gamma"),
    "_random_pdf_exponential": _pdf("exponential"),
    "_random_pdf_poisson": _pdf("poisson"),
    "_random_pdf_negative_binomial": _pdf("negative_binomial"),
    "_random_pdf_generalized_negative_binomial": _pdf("generalized_negative_binomial"),
    "_random_pdf_dirichlet": _pdf_dirichlet,
    "_contrib_box_decode": _box_decode,
    "_contrib_box_nms": _box_nms,
    "_contrib_MultiBoxDetection": _multibox_detection,
    "_contrib_MultiBoxTarget": _multibox_target,
    "_contrib_Proposal": _proposal,
    "_contrib_MultiProposal": _proposal,
    "_contrib_quadratic": lambda x, p: (_f32(p.get("a", 0)) * x + _f32(p.get("b", 0))) * x
    + _f32(p.get("c", 0)),
    "_contrib_gradientmultiplier": lambda x, p: x,
    "_contrib_arange_like": _arange_like,
    "_contrib_index_copy": _index_copy,
    "_contrib_index_array": lambda x, p: np.stack(np.indices(x.shape), -1)[
        ..., list(_tuple(p["axes"])) if "axes" in p else slice(None)].astype(np.int64),
    "Correlation": _correlation,
    "khatri_rao": _khatri_rao,
    "_contrib_BilinearResize2D": _bilinear_resize,
    "_contrib_AdaptiveAvgPooling2D": _adaptive_avg_pooling,
    "_contrib_interleaved_matmul_selfatt_qk": _selfatt_qk,
    "_contrib_interleaved_matmul_selfatt_valatt":
        lambda qkv, a, p: _attended(a, _heads(qkv, p, 3)[2], p),
    "_contrib_interleaved_matmul_encdec_qk": _encdec_qk,
    "_contrib_interleaved_matmul_encdec_valatt":
        lambda kv, a, p: _attended(a, _heads(kv, p, 2)[1], p),
    "_contrib_div_sqrt_dim": lambda x, p: x / np.sqrt(x.shape[-1]),
    "Crop": _crop,
    "col2im": _col2im,
    "_linalg_extractdiag": lambda a, p: np.diagonal(a, int(p.get("offset", 0)), -2, -1),
    "_linalg_makediag": _makediag,
    "_linalg_extracttrian": _extracttrian,
    "_linalg_maketrian": _maketrian,
    "_linalg_sumlogdiag": lambda a, p: np.log(np.diagonal(a, 0, -2, -1)).sum(-1).reshape(
        a.shape[:-2] or (1,)),
    "GridGenerator": _grid_generator,
    "BilinearSampler": _bilinear_sampler,
    "SpatialTransformer": _spatial_transformer,
    "multi_lars": _multi_lars,
    "broadcast_axis": _broadcast_axis,
    "reshape_like": _reshape_like,
    "depth_to_space": _depth_to_space,
    "diag": _diag,
    "space_to_depth": _space_to_depth,
    "shape_array": lambda x, p: np.array(x.shape, dtype=np.int64),
    "size_array": lambda x, p: np.array([x.size], dtype=np.int64),
    "softmin": lambda x, p: _softmax(-x, p, log=False),
    "add_n": lambda *a: sum(a[:-1]),
    "argmax": _arg_reduce(np.argmax),
    "argsort": _argsort,
    "sort": _sort,
    "topk": _topk,
    "argmin": _arg_reduce(np.argmin),
    "reverse": lambda x, p: np.flip(x, axis=_tuple(p["axis"])),
    "swapaxes": _swapaxes,
    "transpose": lambda x, p: np.transpose(x, _tuple(p["axes"]) if "axes" in p else None),
}

for _name, _fn in _MATH_BINARY.items():
    FORWARD["broadcast_" + _name] = _binary(_fn)
    FORWARD["_" + _name] = _binary(_fn)
    FORWARD["_" + _name + "_scalar"] = _scalar(lambda x, s, fn=_fn: fn(x, np.full_like(x, s)))
FORWARD["_rpower_scalar"] = _scalar(lambda x, s: np.power(s, x))
FORWARD["_rmod_scalar"] = _scalar(lambda x, s: np.mod(s, x))
