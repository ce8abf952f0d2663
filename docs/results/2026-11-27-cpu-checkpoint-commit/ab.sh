#!/usr/bin/env bash
cd "$(dirname "$0")"  # beside apsp-before, apsp-after and sparse.bin (apsp gen random -n 16384 -m 16384 --seed 7)
echo "rep,binary,mode,compute_ms,commit_ms,total_ms,wall_s" > ab.csv
for rep in 1 2 3; do
  for bin in before after; do
    for mode in plain checkpoint; do
      args=(); [ $mode = checkpoint ] && args=(--checkpoint)
      t0=$(date +%s.%N)
      ./apsp-$bin solve sparse.bin --algo dijkstra -o d.bin "${args[@]}" > run.log 2>&1
      t1=$(date +%s.%N)
      c=$(awk '$1=="compute"{print $2}' run.log); m=$(awk '$1=="commit"{print $2}' run.log); t=$(awk '$1=="total"{print $2}' run.log)
      echo "$rep,$bin,$mode,$c,$m,$t,$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')" >> ab.csv
      rm -f d.bin .d.bin.apsp-*
    done
  done
done
