# Agent-style: descriptive statistics with the statistics module.
import statistics as st

scores = [72, 85, 90, 66, 85, 78, 95, 88, 85, 70]
print(st.mean(scores), st.median(scores), st.mode(scores), st.multimode([1, 1, 2, 2, 3]))
print(round(st.stdev(scores), 4), round(st.pstdev(scores), 4), round(st.variance(scores), 4))
print(st.median_low([1, 2, 3, 4]), st.median_high([1, 2, 3, 4]), st.quantiles(scores, n=4))
print(st.fmean([1.5, 2.5, 4.0]), st.geometric_mean([1, 10, 100]), st.harmonic_mean([2, 6]))
xs = [1, 2, 3, 4, 5]
ys = [2.1, 3.9, 6.2, 7.8, 10.1]
print(round(st.correlation(xs, ys), 6), st.linear_regression(xs, ys))
print(st.mean([1, 2, 4]), type(st.mean([1, 2, 4])).__name__, st.mean([0.5, 1.5]))
try:
    st.mean([])
except st.StatisticsError as e:
    print("StatisticsError:", e)
grades = {"ann": [90, 80], "bo": [70, 75, 80], "cy": [88]}
report = {name: (st.mean(g), len(g)) for name, g in grades.items()}
print(report, max(report, key=lambda n: report[n][0]))
try:
    st.stdev([5])
except st.StatisticsError as e:
    print("StatisticsError:", e)
