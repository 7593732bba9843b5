"""The protocol-check helpers: Nsight Compute CSV parsing, case grouping, and run comparison."""

from __future__ import annotations

import json

from site_builder.runner import compare_runs, ncu_check

from conftest import write

NCU_CSV = '''==PROF== Connected to process 1
"ID","Process ID","Kernel Name","gpu__time_duration.sum"
"","","","ns"
"0","1","void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char *, 1>>(int, T2, T3)","1,000"
"1","1","_k_rows","10,500"
"2","1","_k_rows","11,500"
"3","1","void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char *, 1>>(int, T2, T3)","1,000"
"4","1","add","3,000"
"5","1","norm","4,000"
"6","1","add","3,000"
"7","1","norm","5,000"
'''


def test_ncu_durations_are_grouped_per_case_between_markers(tmp_path):
    csv_path = write(tmp_path, "ncu.csv", NCU_CSV)
    kernels = ncu_check.read_ncu_csv(csv_path)
    assert kernels[1] == ("_k_rows", 10.5)  # ns with thousands separators, in µs
    cases = [{"implementation": "a", "workload": "w", "calls": 2},
             {"implementation": "b", "workload": "w", "calls": 2}]
    a, b = ncu_check.per_case(kernels, cases)
    assert (a["kernels_per_call"], a["ncu_median_us"]) == (1, 11.0)
    assert (b["kernels_per_call"], b["ncu_median_us"], b["ncu_min_us"], b["ncu_max_us"]) == (2, 7.5, 7.0, 8.0)


def test_compare_ncu_sets_the_protocol_median_beside_it(tmp_path, capsys):
    csv_path = write(tmp_path, "ncu.csv", NCU_CSV)
    cases = write(tmp_path, "cases.json", json.dumps([{"implementation": "a", "workload": "w", "calls": 2}]))
    run = write(tmp_path, "run.yaml", """
        results:
          - {implementation: a, workload: w, status: ok, device_us: {median: 11.55}}
    """)
    ncu_check.main(["compare", str(csv_path), str(cases), str(run)])
    assert "| a | w | 1 | 11.00 (10.50–11.50) | 11.55 | 1.050 |" in capsys.readouterr().out


def test_compare_runs_reports_ratios_and_spread(tmp_path):
    one = """
        results:
          - {implementation: a, workload: w, status: ok, device_us: {median: 10.0}, e2e_us: {median: 20.0}}
          - {implementation: b, workload: w, status: failed, error: x}
    """
    a = write(tmp_path, "a.yaml", one)
    b = write(tmp_path, "b.yaml", one.replace("median: 10.0", "median: 10.1").replace("20.0", "30.0"))
    text = compare_runs.compare(a, b)
    assert "| a | w | 10 | 10.1 | 1.010 | 20 | 30 | 1.500 |" in text
    assert "device_us: 1 pairs; |B/A − 1| median 1.0%, max 1.0%; 1 of 1 within 2 %" in text
    assert "| b |" not in text
