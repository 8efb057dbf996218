# Reference values for fbeval's percentiles (stats.Percentile), from
# numpy.percentile (method "linear"), for TestPercentileAgainstNumpy. With
# Debian's python3-numpy:
#   /usr/bin/python3 testdata/numpy_percentile.py > testdata/numpy_percentile.txt
# A line "x" holds an ascending sample; each "p" line after it a percentile
# of it and numpy's value.
import random
import numpy as np
random.seed(16)
print("# numpy %s" % np.__version__)
ps = [0, 2.5, 5, 25, 50, 75, 95, 97.5, 99, 100, 33.3, 66.7]
for n in list(range(1, 25)) + [50, 99, 100, 101, 1000]:
    kind = n % 3
    if kind == 0:
        xs = [random.random() * 1000 for _ in range(n)]
    elif kind == 1:
        xs = [float(random.randint(1, 5000)) for _ in range(n)]
    else:
        xs = [random.choice([0.1, 0.2, 0.3, 1e-9, 123456.789, 5e15]) for _ in range(n)]
    xs.sort()
    print("x " + " ".join(repr(x) for x in xs))
    for p in ps:
        print("p %r %r" % (p, float(np.percentile(np.array(xs), p))))
