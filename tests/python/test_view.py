"""`risec view` in a real browser: Debian's chromium, headless, driven by Selenium
through Debian's chromium-driver (scripts/setup.sh installs both; docs/cli.md,
"view"). The page must load without a console error, and clicks must link a loop of
the generated code, a DPIA line and a strategy step to the program line they come
from, and a program line back to them."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RISEC = os.environ.get("RISEC_BIN", str(ROOT / "build" / "risec"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def view(tmp_path, *args):
    out = tmp_path / "view.html"
    r = subprocess.run([RISEC, "view", *args, "-o", str(out)], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")
    return out


@pytest.fixture(scope="module")
def browser():
    # Not a skip: setup.sh installs the browser, and a missing one must fail the run.
    assert os.path.exists(CHROMIUM), "chromium is not installed (scripts/setup.sh installs it)"
    assert os.path.exists(CHROMEDRIVER), "chromium-driver is not installed (scripts/setup.sh)"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    yield driver
    driver.quit()


def errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_a_loop_of_the_code_marks_its_program_line_and_back(tmp_path, browser):
    from selenium.webdriver.common.by import By

    page = view(tmp_path, "examples/harris/harris.rise", "--size", "n=32,m=32", "--target",
                "openmp")
    browser.get(page.as_uri())
    assert browser.title == "risec view: harris"
    assert errors(browser) == []
    loops = browser.find_elements(By.CSS_SELECTOR, "#code .linked")
    assert loops, "no loop of the generated code is linked to the program"
    loop = next(l for l in loops if "for (" in l.text or "#pragma" in l.text)
    line = loop.get_attribute("data-src")
    browser.execute_script("arguments[0].scrollIntoView()", loop)
    loop.click()
    src = browser.find_element(By.ID, "src-" + line)
    assert "marked" in src.get_attribute("class").split()
    # The line is the one the location comment names, and it is a line of harris.rise.
    text = (ROOT / "examples/harris/harris.rise").read_text().splitlines()[int(line) - 1]
    assert src.text.endswith(text.strip()) or text.strip() in src.text
    assert f"line {line} of the program" in browser.find_element(By.ID, "status").text
    # Back: a click on the program line marks that loop (and the DPIA's) again.
    browser.find_element(By.ID, "src-1").click()
    assert "marked" not in loop.get_attribute("class").split()
    src.click()
    assert "marked" in loop.get_attribute("class").split()
    dpia = browser.find_elements(By.CSS_SELECTOR, f'#dpia [data-src="{line}"]')
    assert dpia, "no DPIA line is linked to line " + line
    assert errors(browser) == []


def test_strategy_steps_link_to_where_they_applied(tmp_path, browser):
    from selenium.webdriver.common.by import By

    page = view(tmp_path, "examples/mv/mv.rise", "--strategy", "examples/mv/fused.elv",
                "--size", "n=16,m=8")
    browser.get(page.as_uri())
    assert errors(browser) == []
    steps = browser.find_elements(By.CSS_SELECTOR, "#steps li.step")
    assert any("fuseReduceMap" in s.text for s in steps)
    fused = next(s for s in steps if "fuseReduceMap" in s.text and s.get_attribute("data-src"))
    browser.execute_script("arguments[0].scrollIntoView()", fused)
    fused.find_element(By.TAG_NAME, "b").click()
    line = fused.get_attribute("data-src")
    assert "marked" in browser.find_element(By.ID, "src-" + line).get_attribute("class").split()
    # The step's terms are shown when opened.
    fused.find_element(By.TAG_NAME, "summary").click()
    pres = fused.find_elements(By.TAG_NAME, "pre")
    assert len(pres) == 2 and "reduce" in pres[0].text


def test_view_refuses_bad_input(tmp_path):
    bad = tmp_path / "bad.rise"
    bad.write_text("def f = fun(x: 8.f32 => x |> mapp(fun(a => a)))\n")
    r = subprocess.run([RISEC, "view", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "unknown name 'mapp'" in r.stderr
    r = subprocess.run([RISEC, "view", "examples/mv/mv.rise", "--size", "n=16,m=8", "-o",
                        str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode != 0 and r.stderr
    r = subprocess.run([RISEC, "view", "examples/mv/mv.rise", "--repeat", "3"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "does not take --repeat" in r.stderr
