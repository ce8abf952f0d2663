set -u
scripts/gpu-sparse --tests 'GpuSparse*:GpuProgress*' --sanitize --bench none 2>&1 | tail -12
B=./build-sparse/bench/apsp_bench_gpu_sparse_bench
C="--csv $OUT/sparse.csv --reps 3"
$B compare --families rmat,uniform,dense-half --sizes 4096 --methods fw-int32,fw-int16,sssp-frontier,sssp-nearfar,sssp,auto $C 2>&1 | tail -20
$B compare --families grid,geometric --grid-sizes 16384 --geometric-sizes 16384 --methods fw-int32,fw-int16,sssp-nearfar,sssp,auto $C 2>&1 | tail -12
$B compare --families dense-half --sizes 16384 --methods fw-int32,fw-int16,auto $C 2>&1 | tail -5
$B compare --families grid --grid-sizes 65536 --methods sssp --max-blocks 0,132,264,396 $C 2>&1 | tail -6
$B compare --families grid,geometric --grid-sizes 65536 --geometric-sizes 126146 --methods sssp --delta-scales 1,2,4,8,16,32 $C 2>&1 | tail -14
