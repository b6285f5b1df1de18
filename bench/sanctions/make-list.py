# Writes the benchmark's sanctions list (SDN.CSV, ALT.CSV, ADD.CSV in OFAC's published layout,
# CRLF and the end-of-file character as OFAC publishes them). Every name is invented for the
# benchmark, in the forms real listings take: "LAST, First" individuals with patronymics and
# particles, entities with legal forms, weak aliases in the remarks. Run: python3 make-list.py
N = "-0- "
def q(s): return '"' + s.replace('"', '""') + '"'
E = []  # (uid, name, type, program, remarks, [aliases (type, name)], [(city, country)])
def ind(uid, name, prog, remarks, aliases=(), adds=()):
    E.append((uid, name, "individual", prog, remarks, list(aliases), list(adds)))
def ent(uid, name, prog, remarks=N, aliases=(), adds=()):
    E.append((uid, name, N, prog, remarks, list(aliases), list(adds)))
ind(10001, "AL-RASHIDI, Khalid Abdullah", "SDGT", "DOB 14 Feb 1968; alt. DOB 1969; nationality Yemen; a.k.a. 'ABU HAMZA'.", [("aka", "AL-RASHIDY, Khaled")], [("Sana'a", "Yemen")])
ind(10002, "PETROVSKY, Dmitri Sergeyevich", "RUSSIA-EO14024", "DOB 03 Nov 1971; nationality Russia; a.k.a. 'DIMA'.", [("aka", "PETROVSKII, Dmitrii Sergeevich")], [("Moscow", "Russia")])
ent(10003, "KARIMI TRADING COMPANY LLC", "IRAN] [SDGT", "a.k.a. 'KTC'.", [("aka", "KARIMI TRADING CO."), ("fka", "SEPID KARIMI TRADING")], [("Tehran", "Iran")])
ind(10005, "GONZALEZ MORENO, Jose Luis", "SDNTK", "DOB 21 Aug 1975; nationality Mexico; a.k.a. 'EL FLACO'.", [("aka", "GONZALES MORENO, Jose Luis")], [("Culiacan, Sinaloa", "Mexico")])
ent(10006, "BANCO INTERNACIONAL DEL ORINOCO, S.A.", "VENEZUELA-EO13850", N, [], [("Caracas", "Venezuela")])
ind(10007, "ZHANG, Weiming", "NPWMD", "DOB circa 1962; nationality China.")
ind(10008, "AL-NOURI, Ahmad Yusuf", "SYRIA", "DOB 1960 to 1962; nationality Syria; a.k.a. 'AHMAD'.", [], [("Aleppo", "Syria")])
ent(10009, "ABU SAYYAF TRADING ESTABLISHMENT", "SDGT")
ind(10011, "HAQQANI, Sirajuddin Mawlawi", "SDGT", "DOB circa 1977; nationality Afghanistan; a.k.a. 'KHALIFA'.", [("aka", "HAQANI, Siraj")], [("Miram Shah", "Pakistan")])
ind(10012, "MAHMOUDI, Reza Gholamhossein", "IRGC] [IFSR", "DOB 05 Jun 1966; nationality Iran.", [("aka", "MAHMUDI, Reza")], [("Tehran", "Iran")])
ind(10013, "KOLESNIKOV, Andrei Viktorovich", "RUSSIA-EO14024", "DOB 17 Jan 1974; nationality Russia.", [("aka", "KOLESNIKOV, Andrey Viktorovich")], [("Saint Petersburg", "Russia")])
ind(10014, "KIM, Chol Su", "DPRK2", "DOB 12 Apr 1969; nationality Korea, North.", [("aka", "KIM, Cheol-soo")], [("Pyongyang", "Korea, North")])
ind(10015, "RAMIREZ ABADIA, Juan Carlos", "SDNT", "DOB 16 Feb 1963; nationality Colombia; a.k.a. 'CHUPETA'.", [], [("Cali", "Colombia")])
ind(10016, "AL-QAHTANI, Faisal Mubarak", "SDGT", "DOB 1979; nationality Saudi Arabia.", [("aka", "QAHTANI, Faysal")], [("Riyadh", "Saudi Arabia")])
ind(10017, "SHEVCHENKO, Oleksandr Ivanovych", "UKRAINE-EO13660", "DOB 22 Sep 1958; nationality Ukraine.", [("aka", "SHEVCHENKO, Aleksandr Ivanovich")], [("Simferopol", "Ukraine")])
ind(10018, "NASRALLAH, Hassan Abdel Karim", "SDT", "DOB 31 Aug 1960; nationality Lebanon.", [("aka", "NASRULLAH, Hasan")], [("Beirut", "Lebanon")])
ind(10019, "OYELARAN, Babatunde Olusegun", "CYBER2", "DOB 08 Mar 1985; nationality Nigeria.", [], [("Lagos", "Nigeria")])
ind(10020, "MENDOZA VILLALOBOS, Maria Fernanda", "SDNTK", "DOB 11 Nov 1980; nationality Mexico.", [], [("Tijuana", "Mexico")])
ind(10021, "TAHERI, Mohammad Javad", "IRAN-HR", "DOB 1957; nationality Iran.", [("aka", "TAHERI, Mohammed Jawad")], [("Isfahan", "Iran")])
ind(10022, "ABDULRAHMAN, Yasin Omar", "SDGT", "DOB 10 Oct 1971; nationality Somalia.", [("aka", "ABDUL RAHMAN, Yaseen")], [("Mogadishu", "Somalia")])
ind(10023, "VOLKOVA, Yelena Nikolayevna", "RUSSIA-EO14024", "DOB 02 Feb 1976; nationality Russia.", [("aka", "VOLKOVA, Elena Nikolaevna")], [("Moscow", "Russia")])
ind(10024, "CHOUDHRY, Tariq Mehmood", "SDGT", "DOB 1970; nationality Pakistan.", [("aka", "CHAUDHARY, Tariq Mahmood")], [("Lahore", "Pakistan")])
ind(10025, "LUKASHEVICH, Viktor Pavlovich", "BELARUS-EO14038", "DOB 19 Jul 1962; nationality Belarus.", [], [("Minsk", "Belarus")])
ind(10026, "HUSSEIN AL-TIKRITI, Barzan Ibrahim", "IRAQ2", "DOB 17 Feb 1951; nationality Iraq.", [("aka", "AL-TIKRITI, Barzan")], [("Baghdad", "Iraq")])
ind(10027, "ESCOBAR HENAO, Roberto de Jesus", "SDNT", "DOB 13 Jan 1947; nationality Colombia; a.k.a. 'OSITO'.", [], [("Medellin", "Colombia")])
ind(10028, "NGUEMA OBIANG, Teodoro Mangue", "GLOMAG", "DOB 25 Jun 1969; nationality Equatorial Guinea.", [], [("Malabo", "Equatorial Guinea")])
ind(10029, "SULEIMANI, Qassem Hassan", "IRGC", "DOB 11 Mar 1957; nationality Iran.", [("aka", "SOLEIMANI, Ghasem")], [("Kerman", "Iran")])
ind(10030, "AL-MASRI, Abu Ayyub", "SDGT", "DOB 1968; nationality Egypt.", [("aka", "MASRI, Abu Ayub")], [("Cairo", "Egypt")])
ind(10031, "DERIPASKIN, Oleg Vladimirovich", "RUSSIA-EO14024", "DOB 02 Jan 1968; nationality Russia.", [], [("Moscow", "Russia")])
ind(10032, "LOPEZ OBRADOR SANTOS, Ernesto", "SDNTK", "DOB 04 Apr 1972; nationality Mexico.", [], [("Sinaloa", "Mexico")])
ind(10033, "WANG, Jianguo", "NPWMD", "DOB 03 Mar 1965; nationality China.", [], [("Dalian", "China")])
ind(10034, "BOUTEFLIKANI, Said Mourad", "SDGT", "DOB 1966; nationality Algeria.", [], [("Algiers", "Algeria")])
ind(10035, "ZAWAHRI, Muhammad Rabie", "SDGT", "DOB 1953; nationality Egypt.", [("aka", "AL-ZAWAHIRI, Mohammed")], [("Cairo", "Egypt")])
ind(10036, "FERNANDES DA SILVA, Joao Paulo", "SDNTK", "DOB 29 May 1978; nationality Brazil.", [], [("Sao Paulo", "Brazil")])
ind(10037, "OMAROV, Ramzan Akhmatovich", "GLOMAG", "DOB 05 Oct 1976; nationality Russia.", [("aka", "OMAROV, Ramzan Akhmadovich")], [("Grozny", "Russia")])
ind(10038, "PAK, Yong Ho", "DPRK3", "DOB 1972; nationality Korea, North.", [("aka", "PARK, Young-ho")], [("Pyongyang", "Korea, North")])
ind(10039, "AL-BAGHDADI, Ibrahim Awwad", "SDGT", "DOB 1971; nationality Iraq.", [("aka", "AL-BADRI, Ibrahim Awad Ibrahim")], [("Samarra", "Iraq")])
ind(10040, "NDAYISHIMIYE, Gervais", "BURUNDI", "DOB 1968; nationality Burundi.", [], [("Bujumbura", "Burundi")])
ent(10041, "SEPAHAN STEEL INDUSTRIES GROUP", "IRAN", N, [("aka", "SEPAHAN STEEL IND.")], [("Isfahan", "Iran")])
ent(10042, "NORTHERN CASPIAN SHIPPING COMPANY", "IRAN", N, [("aka", "N.C.S.C.")], [("Bandar Anzali", "Iran")])
ent(10043, "GOLDEN CRESCENT EXCHANGE LLC", "SDGT", "a.k.a. 'GOLDEN'.", [], [("Dubai", "United Arab Emirates")])
ent(10044, "VOSTOK INDUSTRIAL BANK JSC", "RUSSIA-EO14024", N, [("aka", "VOSTOCHNY PROMYSHLENNY BANK")], [("Novosibirsk", "Russia")])
ent(10045, "AL-FURQAN CHARITABLE FOUNDATION", "SDGT", N, [("aka", "FURQAN FOUNDATION")], [("Karachi", "Pakistan")])
ent(10046, "KOREA KWANGSON BANKING CORP", "DPRK", N, [("aka", "KKBC")], [("Pyongyang", "Korea, North")])
ent(10047, "PETROLEOS DEL CARIBE S.A.", "VENEZUELA-EO13850", N, [], [("Caracas", "Venezuela")])
ent(10048, "TIGRIS GENERAL TRADING FZE", "IRAQ3", N, [], [("Sharjah", "United Arab Emirates")])
ent(10049, "MINSK AUTOMOTIVE WORKS OAO", "BELARUS-EO14038", N, [("aka", "MINSKIY AVTOMOBILNY ZAVOD")], [("Minsk", "Belarus")])
ent(10050, "HAVANA INTERNATIONAL TOURS", "CUBA", N, [], [("Havana", "Cuba")])
ent(10051, "SHAHID BAKERI INDUSTRIAL GROUP", "NPWMD] [IFSR", N, [("aka", "SBIG")], [("Tehran", "Iran")])
ent(10052, "DAMASCUS CHAM HOLDING", "SYRIA", N, [("aka", "CHAM HOLDING")], [("Damascus", "Syria")])
ent(10053, "ZENITH MARITIME LIMITED", "SDGT", N, [], [("Valletta", "Malta")])
ent(10054, "EURO-ASIAN METALS GMBH", "RUSSIA-EO14024", N, [], [("Vienna", "Austria")])
ent(10055, "RED SEA HONEY TRADING", "SDGT", N, [], [("Khartoum", "Sudan")])
# A strong alias of one word after the legal form is dropped ("MASO"): one shared word is chance.
ent(10056, "MASO SHIPPING FZE", "IRAN", N, [("aka", "MASO CO")], [("Dubai", "United Arab Emirates")])

def w(name, rows):
    with open(name, "wb") as f:
        f.write(("\r\n".join(rows) + "\r\n\x1a").encode("ascii"))
w("SDN.CSV", [",".join([str(u), q(n), q(t), q(p)] + [q(N)] * 7 + [q(r)]) for (u, n, t, p, r, a, d) in E])
alt, add, k = [], [], 1
for (u, n, t, p, r, aliases, adds) in E:
    for (ty, an) in aliases:
        alt.append(f'{u},{k},{q(ty)},{q(an)},{q(N)}'); k += 1
    for (city, country) in adds:
        add.append(f'{u},{k},{q(N)},{q(city)},{q(country)},{q(N)}'); k += 1
w("ALT.CSV", alt)
w("ADD.CSV", add)
print(len(E), "entries,", len(alt), "aliases,", len(add), "addresses")
