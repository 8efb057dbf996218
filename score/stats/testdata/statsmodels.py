# Reference values for fbeval's Wilson interval and exact McNemar test, from
# statsmodels (proportion_confint method="wilson", contingency_tables.mcnemar
# exact=True), for TestAgainstStatsmodels. With Debian's python3-statsmodels:
#   /usr/bin/python3 testdata/statsmodels.py > testdata/statsmodels.txt
import sys
import numpy as np
import statsmodels, scipy
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.contingency_tables import mcnemar
out = sys.stdout
out.write("# statsmodels %s, scipy %s: wilson N S LO HI (percent), mcnemar WINS LOSSES P\n" % (statsmodels.__version__, scipy.__version__))
ns = list(range(1, 41)) + [50, 63, 100, 101, 252, 480, 999, 1000, 1440, 4032, 100800, 1008000]
for n in ns:
    ss = sorted(set([0, 1, 2, n // 3, n // 2, n - 2, n - 1, n] + ([3, 7, n // 7, (2 * n) // 3] if n > 10 else list(range(n + 1)))))
    for s in ss:
        if s < 0 or s > n:
            continue
        lo, hi = proportion_confint(s, n, alpha=0.05, method="wilson")
        out.write("wilson %d %d %r %r\n" % (n, s, lo * 100, hi * 100))
pairs = [(b, c) for b in range(0, 26) for c in range(0, 26)] + [(100, 130), (130, 100), (480, 520), (1000, 1100), (5000, 5100), (40, 400), (0, 1074), (3, 2000)]
for b, c in pairs:
    p = mcnemar(np.array([[0, b], [c, 0]]), exact=True).pvalue
    out.write("mcnemar %d %d %r\n" % (b, c, float(p)))
