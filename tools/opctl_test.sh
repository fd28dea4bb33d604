#!/usr/bin/env bash
# opctl end to end: the demo trains, the catalogue is valid JSON naming every operator with
# its parameters, run/describe/bench work, and every kind of bad input exits non-zero with
# the registry's message.
set -euo pipefail
opctl="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/opctl"
fail() { echo "opctl_test: $*" >&2; exit 1; }

# The demo (also what `opctl` does with no arguments).
out=$("$opctl")
echo "$out"
grep -q '^epoch 10  loss=' <<<"$out" || fail "demo did not print ten epochs"
grep -q 'loss fell from' <<<"$out" || fail "demo did not report the loss"
# It says where it ran: the CPU in this build (no CUDA), and the same with --device cpu.
grep -q 'through registered operators on the CPU$' <<<"$out" || fail "demo did not name its device"
"$opctl" demo mlp --device cpu | grep -q 'on the CPU$' || fail "demo --device cpu"
if "$opctl" demo --device gpu 2>err.txt; then fail "demo --device gpu ran without CUDA"; fi
grep -q -- "--device gpu needs opctl built with CUDA" err.txt || fail "demo --device gpu: $(cat err.txt)"
if "$opctl" demo --device tpu 2>err.txt; then fail "demo --device tpu succeeded"; fi
grep -q -- "--device tpu is not a device; valid: cpu, gpu" err.txt || fail "demo --device tpu: $(cat err.txt)"
# The CNN demo (it fails itself unless the loss falls below half its first value).
out=$("$opctl" demo cnn)
echo "$out"
grep -q '^epoch 6  loss=.*images/s$' <<<"$out" || fail "demo cnn did not print six epochs"
grep -q 'held-out accuracy (inference mode)' <<<"$out" || fail "demo cnn did not evaluate"
if "$opctl" demo resnet 2>err.txt; then fail "demo resnet succeeded"; fi
grep -q "demo takes \[mlp|cnn\] (default mlp) and \[--device cpu|gpu\]; got 'resnet'" err.txt ||
  fail "demo resnet: $(cat err.txt)"

# The catalogue.
"$opctl" list --json >catalog.json
python3 - <<'PY' || fail "catalogue check failed"
import json
catalog = {op["name"]: op for op in json.load(open("catalog.json"))}
required = """elemwise_add elemwise_sub elemwise_mul elemwise_div _plus_scalar _minus_scalar
_rminus_scalar _mul_scalar _div_scalar _rdiv_scalar broadcast_add broadcast_sub broadcast_mul
broadcast_div relu sigmoid tanh exp log sqrt square abs negative clip Activation LeakyReLU
FullyConnected softmax log_softmax softmax_cross_entropy dot batch_dot sum mean max min Reshape
Flatten transpose Concat slice_axis Cast sgd_update sgd_mom_update Convolution Pooling BatchNorm
Dropout SoftmaxOutput""".split()
missing = [name for name in required if name not in catalog]
assert not missing, missing
fc = catalog["FullyConnected"]
assert fc["inputs"] == ["data", "weight", "bias"], fc["inputs"]
assert fc["backward"] == "_backward_FullyConnected"
params = {p["name"]: p for p in fc["params"]}
assert params["num_hidden"]["type_info_str"] == "int, required", params
assert params["no_bias"]["type_info_str"] == "boolean, optional, default=False", params
act = {p["name"]: p for p in catalog["Activation"]["params"]}["act_type"]
assert act["type_info_str"].startswith("{'relu', 'sigmoid'"), act
for name in required:
    op = catalog[name]
    assert set(op) == {"name", "description", "inputs", "num_outputs", "num_visible_outputs",
                       "backward", "is_backward", "params"}, op
    assert op["description"], name
PY
# (Outputs are captured before grep: `grep -q` would close a pipe early under pipefail.)
listing=$("$opctl" list)
grep -q '^FullyConnected  A fully connected' <<<"$listing" || fail "list"
grep -q "^hard_sigmoid  Piecewise linear sigmoid" <<<"$listing" ||
  fail "the guide's example is not listed"
grep -q 'temperature : double or None' <<<"$("$opctl" describe softmax)" || fail "describe"

# run: shapes as tuples, outputs with shape and sum.
run=$("$opctl" run FullyConnected --shape 'data=(4,8)' --param num_hidden=16)
grep -q '^input weight: shape (16,8)$' <<<"$run" || fail "run did not infer the weight: $run"
grep -q '^output 0: shape (4,16) sum ' <<<"$run" || fail "run output: $run"
grep -q 'shape (2,)' <<<"$("$opctl" run sum --shape 'data=(2,3)' --param 'axis=(1,)' --dtype float64)" ||
  fail "run sum"
# An operator without inputs (its shape from its parameters): 0 + 1 + 2 + 3 + 4.
grep -q '^output 0: shape (5,) sum 10$' <<<"$("$opctl" run _arange --param start=0 --param stop=5)" ||
  fail "run _arange"
grep -q 'relu backward' <<<"$("$opctl" bench relu --shape 'data=(1000,)' --iterations 10)" ||
  fail "bench"
# Operators with hidden integer outputs (max pooling's positions) are timed backward too.
grep -q 'Pooling backward' <<<"$("$opctl" bench Pooling --shape 'data=(1,2,6,6)' \
  --param 'kernel=(2,2)' --param pool_type=max --iterations 2)" || fail "bench Pooling"

# Bad input: exit status 1 (2 for usage errors), not a crash (an abort or a signal exits with
# 134 and up), and a message that says what is wrong.
expect_error() {
  local pattern=$1 status=0
  shift
  "$opctl" "$@" >/dev/null 2>err.txt || status=$?
  ((status == 1 || status == 2)) || { cat err.txt >&2; fail "exit status $status for: $*"; }
  grep -q -- "$pattern" err.txt || { cat err.txt >&2; fail "wrong message for: $*"; }
}
expect_error "unknown command 'frobnicate'" frobnicate
expect_error "Did you mean 'FullyConnected'" run FullyConect --shape 'data=(2,2)'
expect_error "Did you mean 'num_hidden'" run FullyConnected --shape 'data=(4,8)' --param num_hiden=3
expect_error "shape of input 'rhs' is (3,2) but (2,3) is required" \
  run elemwise_add --shape 'lhs=(2,3)' --shape 'rhs=(3,2)'
expect_error "is not a shape such as" run relu --shape 'data=(4,a)'
expect_error "relu has no input 'x'" run relu --shape 'x=(4,3)'
expect_error "cannot infer every shape" run relu
expect_error "valid: float32, float64" run relu --shape 'data=(2,)' --dtype int8
expect_error "\-\-device tpu is not a device; valid: cpu, gpu" run relu --shape 'data=(2,)' --device tpu
# --device gpu: without CUDA in the build, or without a GPU, an error that says which.
status=0
gpu_run=$("$opctl" run relu --shape 'data=(2,3)' --device gpu 2>err.txt) || status=$?
if ((status == 0)); then
  grep -q '^output 0: largest difference from the CPU 0$' <<<"$gpu_run" || fail "gpu run: $gpu_run"
else
  ((status == 1)) || fail "exit status $status for --device gpu"
  grep -Eq "needs opctl built with CUDA|CUDA" err.txt || fail "--device gpu: $(cat err.txt)"
fi

# Hostile input found by review (each once crashed, wrapped or was silently accepted).
expect_error "input 'data' has shape (-3,-4) with negative axis 0; extents must be >= 0" \
  run FullyConnected --shape 'data=(-3,-4)' --param num_hidden=2
expect_error "axis 9223372036854775807 is out of range for a 2-d input; valid: \[-2, 2)" \
  run sum --shape 'data=(2,3)' --param 'axis=(9223372036854775807,)'
expect_error "cannot split an axis of 2 into 4611686018427387904 x 2" \
  run Reshape --shape 'data=(2,3)' --param 'shape=(-4,4611686018427387904,2,-2)'
expect_error "6 x 4611686018427387904 overflows index_t" \
  run Reshape --shape 'data=(2,3)' --param 'shape=(-3,4611686018427387904,2)'
expect_error "these parameters give 2000000000 inputs; at most 65536 are supported" \
  run Concat --shape 'arg0=(2,3)' --param num_args=2000000000
expect_error "\-\-param num_hidden is given twice ('4' and '8')" \
  run FullyConnected --shape 'data=(2,2)' --param num_hidden=4 --param num_hidden=8
expect_error "\-\-shape data is given twice ('(2,2)' and '(3,3)')" \
  run relu --shape 'data=(2,2)' --shape 'data=(3,3)'
expect_error "relu takes no parameters; got 'foo'" run relu --shape 'data=(2,2)' --param foo=1
# A weight of 8 PB: the allocation is refused with its size before anything is zero-filled.
expect_error "cannot allocate 8589934588000000 bytes (.* GiB) for a float32 tensor of shape" \
  run FullyConnected --shape 'data=(2,1000000)' --param num_hidden=2147483647
echo "opctl_test: ok"
